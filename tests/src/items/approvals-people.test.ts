import { generateToken, hashToken } from '@beckon/server/auth/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Factories,
  type HttpClient,
  mcpRequest,
  receiverPool,
  startTestServer,
  type TestServer,
} from '../harness';
import { watchOutcomes } from '../harness/outcome-watch';

/**
 * Approvals are given by people: an agent's credential (API key, a third-party client's OAuth
 * token) is refused unless the item allows agents, the creator is excluded by default, and a
 * timeout policy may answer only where the item says so, marked as the policy's wherever it shows.
 */

type Actor = { type: string; id: string | null };
type Item = {
  id: string;
  status: string;
  answered_by: Actor | null;
  approvals: Record<string, unknown> & { approved: number };
  responses: Array<{ by: Actor; user_id: string | null; approves: boolean | null }>;
};
type TimelineEntry = { action: string | null; actor_type: string; data: Record<string, unknown> | null };

let server: TestServer;
let f: Factories;

const FORM = { id: 'change', fields: [{ id: 'approve', type: 'yesno' as const, label: 'Approve?' }] };
const POLICY = { type: 'policy', id: null };
const AGENT_REFUSED = {
  error: 'an agent may not answer an item collecting approvals (approvals.allow_agents is off)',
  code: 'agent_may_not_answer',
};

const receivers = receiverPool();

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  await receivers.closeAll();
  await server?.close();
});

async function team() {
  const t = await f.team(server.resource);
  const ada = await t.join('member');
  const bob = await t.join('member');
  return { ...t, ada, bob };
}

/** An OAuth access token of a third-party client for the user, stored as the authorization server stores one. */
async function thirdPartyToken(orgId: string, userId: string) {
  const token = generateToken();
  const { sql } = server.database;
  await sql`
    insert into oauth_records (model, id_hash, payload, user_id, org_id, client_id, expires_at)
    values ('AccessToken', ${hashToken(token)}, ${sql.json({ scope: 'items.read items.write' })},
            ${userId}, ${orgId}, 'agent-host', now() + interval '1 hour')`;
  return token;
}

const ask = async (
  api: HttpClient,
  approvals: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => {
  const res = await api.post<Item>('/api/items', {
    title: 'Open the firewall?',
    form: FORM,
    approvals,
    ...extra,
  });
  expect(res.status).toBe(201);
  return res.body;
};
const answer = (api: HttpClient, id: string, approve: boolean) =>
  api.post<Item>(`/api/items/${id}/answer`, { values: { approve } });
const timeline = async (api: HttpClient, id: string) =>
  (await api.get<TimelineEntry[]>(`/api/items/${id}/timeline`)).body;

describe('only people answer toward approvals', () => {
  it('refuses an API key over REST and tRPC and a third-party client: the person then approves', async () => {
    const { org, owner, ada } = await team();
    const item = await ask(owner, { required: 1 });
    const key = await f.apiKey(org.id, ada.id);
    const agent = server.resource.as(key.token);

    const rest = await answer(agent, item.id, true);
    expect(rest.status).toBe(403);
    expect(rest.body).toEqual(AGENT_REFUSED);
    const trpc = await agent.post<{ error: { data: { httpStatus: number; body: unknown } } }>(
      '/trpc/items.answer',
      { id: item.id, values: { approve: true } },
    );
    expect(trpc.status).toBe(403);
    expect(trpc.body.error.data).toMatchObject({ httpStatus: 403, body: AGENT_REFUSED });
    const oauth = server.resource.as(await thirdPartyToken(org.id, ada.id));
    expect((await answer(oauth, item.id, true)).body).toEqual(AGENT_REFUSED);

    // Nothing was counted for Ada: her own answer, from her session, decides.
    const untouched = (await owner.get<Item>(`/api/items/${item.id}`)).body;
    expect(untouched).toMatchObject({ status: 'open', responses: [], approvals: { approved: 0 } });
    const person = await answer(ada.api, item.id, true);
    expect(person.body).toMatchObject({ status: 'answered', answered_by: { type: 'user', id: ada.id } });
    // Over tRPC, a person's session is counted like over REST.
    const second = await ask(owner, { required: 1 });
    const viaTrpc = await ada.api.post('/trpc/items.answer', { id: second.id, values: { approve: true } });
    expect(viaTrpc.status).toBe(200);
  });

  it('an agent key limited to its own items cannot approve the item it created (required: 1)', async () => {
    const { org, ada } = await team();
    const own = server.resource.as((await f.apiKey(org.id, ada.id, { itemAccess: 'own' })).token);
    const item = await ask(own, { required: 1 });
    expect(item.approvals).toMatchObject({ exclude_creator: true, allow_agents: false });
    expect((await answer(own, item.id, true)).body).toEqual(AGENT_REFUSED);
    expect((await own.get<Item>(`/api/items/${item.id}`)).body.status).toBe('open');
  });

  it("refuses the creator's own session by default (exclude_creator), not another person", async () => {
    const { owner, ada } = await team();
    const item = await ask(owner, { required: 1 });
    expect((await answer(owner, item.id, true)).body).toEqual({
      error: "the item's creator may not answer it",
      code: 'creator_may_not_answer',
    });
    expect((await answer(ada.api, item.id, true)).body.status).toBe('answered');
  });

  it("with allow_agents, an agent's answer counts as its owner's and its audit entry says why", async () => {
    const { org, owner, ada, bob } = await team();
    const item = await ask(owner, { required: 2, allow_agents: true });
    expect(item.approvals).toMatchObject({ allow_agents: true, allow_timeout_answer: false });
    const key = await f.apiKey(org.id, ada.id);
    const counted = await answer(server.resource.as(key.token), item.id, true);
    expect(counted.body).toMatchObject({ status: 'open', approvals: { approved: 1 } });
    expect(counted.body.responses).toEqual([
      expect.objectContaining({ by: { type: 'agent', id: key.agentId }, user_id: ada.id, approves: true }),
    ]);
    // The same person cannot answer a second time from their session.
    expect((await answer(ada.api, item.id, true)).status).toBe(409);
    const oauth = server.resource.as(await thirdPartyToken(org.id, bob.id));
    expect((await answer(oauth, item.id, true)).body.status).toBe('answered');

    const entries = await timeline(owner, item.id);
    expect(entries.find((e) => e.action === 'item.create')?.data).toEqual({
      approvals: { allow_agents: true, allow_timeout_answer: false },
    });
    expect(entries.find((e) => e.action === 'item.approve')).toMatchObject({
      actor_type: 'agent',
      data: { allow_agents: true },
    });
    expect(entries.find((e) => e.action === 'item.answer')?.data).toMatchObject({
      allow_agents: true,
      client_id: 'agent-host',
    });
  });
});

describe('the timeout policy of an item collecting approvals', () => {
  const deadline = (ms: number) => new Date(Date.now() + ms).toISOString();
  const answerPolicy = { action: 'answer', values: { approve: false } };

  it('may not answer unless the item allows it: 400 naming the field, over REST and MCP', async () => {
    const { org, owner, ada } = await team();
    const refused = await owner.post('/api/items', {
      title: 'q',
      form: FORM,
      approvals: { required: 2 },
      deadline_at: deadline(60_000),
      on_timeout: answerPolicy,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { on_timeout: expect.stringContaining('approvals.allow_timeout_answer') },
    });
    // Expiring or dismissing decides nothing: allowed.
    await ask(owner, { required: 2 }, { deadline_at: deadline(60_000), on_timeout: { action: 'dismiss' } });

    const key = await f.apiKey(org.id, ada.id);
    const args = {
      title: 'q',
      form: FORM,
      approvals: { required: 2 },
      deadline_at: deadline(60_000),
      on_timeout: answerPolicy,
    };
    const viaMcp = await mcpRequest(server.resource.baseUrl, key.token, 'tools/call', {
      name: 'service.ask',
      arguments: args,
    });
    // Invalid arguments are a tool result the model reads (isError), naming the field.
    expect(viaMcp.body.error).toBeUndefined();
    expect(viaMcp.body.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/- on_timeout: .*allow_timeout_answer/) }],
    });
    const allowed = await mcpRequest<{ content: Array<{ text: string }> }>(
      server.resource.baseUrl,
      key.token,
      'tools/call',
      { name: 'service.ask', arguments: { ...args, approvals: { required: 2, allow_timeout_answer: true } } },
    );
    expect(JSON.parse(allowed.body.result!.content[0]!.text)).toMatchObject({
      approvals: { allow_timeout_answer: true },
      on_timeout: answerPolicy,
    });
  });

  it("with allow_timeout_answer, decides a quorum not reached, marked as the policy's everywhere", async () => {
    const { org, owner, user, ada } = await team();
    const key = await f.apiKey(org.id, user.id);
    const { callback, webhook, stream, agent } = await watchOutcomes(
      server.resource.baseUrl,
      receivers,
      owner,
      key.token,
    );
    const question = await agent.ask({
      title: 'Rotate the keys?',
      form: FORM,
      approvals: { required: 2, allow_timeout_answer: true },
      deadline_at: deadline(1500),
      on_timeout: { action: 'answer', values: { approve: false } },
      callback_url: callback.url,
    });
    // One person approved in time; the quorum was not reached.
    expect((await answer(ada.api, question.item.id, true)).status).toBe(200);

    expect(await question.waitForAnswer({ timeoutMs: 20_000 })).toMatchObject({ byPolicy: true });
    const [call] = await callback.waitFor(1);
    expect(JSON.parse(call!.body)).toMatchObject({ event: 'item.answered', answered_by: POLICY });
    const [delivery] = await webhook.waitFor(1);
    expect(JSON.parse(delivery!.body)).toMatchObject({ data: { item: { answered_by: POLICY } } });
    await stream.until((events) => events.some((e) => e.event === 'item.answered'));
    const event = stream.events.find((e) => e.event === 'item.answered');
    expect(JSON.parse(event!.data)).toMatchObject({ item: { answered_by: POLICY } });
    stream.close();

    const viaMcp = await mcpRequest<{ content: Array<{ text: string }> }>(
      server.resource.baseUrl,
      key.token,
      'tools/call',
      { name: 'service.get', arguments: { id: question.item.id } },
    );
    const item = JSON.parse(viaMcp.body.result!.content[0]!.text) as Item;
    expect(item).toMatchObject({ status: 'answered', answered_by: POLICY, approvals: { approved: 1 } });
    expect(item.responses.map((r) => r.by.type)).toEqual(['user', 'policy']);
    const entries = (await timeline(owner, item.id)).filter((e) => e.action?.startsWith('item.'));
    expect(entries.map((e) => [e.action, e.actor_type])).toEqual([
      ['item.create', 'agent'],
      ['item.approve', 'user'],
      ['item.answer', 'policy'],
    ]);
  });
});
