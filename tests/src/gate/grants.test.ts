import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, mcpRequest, startTestServer, type TestServer } from '../harness';

type Item = {
  id: string;
  title: string;
  message: string | null;
  status: string;
  level: string;
  tags: string[];
  form: { id: string; fields: Array<{ id: string; type: string; options?: Array<{ value: string }> }> };
  metadata: Record<string, unknown>;
  deadline_at: string;
  created_at: string;
  assignees: unknown[];
};
type Grant = {
  id: string;
  rule: string;
  agent_id: string | null;
  item_id: string;
  granted_by: { type: string; id: string };
  note: string | null;
  created_at: string;
  expires_at: string;
};
type GateRequest = { grant: Grant | null; item: Item | null };

let server: TestServer;
let f: Factories;
let owner: HttpClient;
let ownerId: string;
let orgId: string;
let agent: HttpClient;
let agentId: string;

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
  const account = await f.account('owner');
  owner = server.resource.as(account.token);
  ownerId = account.user.id;
  orgId = account.org.id;
  const key = await f.apiKey(orgId, ownerId);
  agent = server.resource.as(key.token);
  agentId = key.agentId;
});
afterAll(() => server?.close());

const ask = async (client: HttpClient, body: Record<string, unknown>) => {
  const res = await client.post<GateRequest>('/api/gate/requests', body);
  expect(res.status, res.text).toBe(201);
  return res.body;
};
const answer = async (id: string, values: Record<string, unknown>, by = owner) => {
  const res = await by.post<Item>(`/api/items/${id}/answer`, { values });
  expect(res.status, res.text).toBe(200);
};

describe('gate requests', () => {
  it('ask a question with the decision form that expires after the timeout', async () => {
    const { grant, item } = await ask(agent, {
      rule: 'Bash(git push *)',
      title: 'Bash: git push origin main',
      message: '{"command":"git push origin main"}',
      timeout_seconds: 120,
      grant_minutes: 15,
      assignees: [{ type: 'user', id: ownerId }],
      metadata: { session_id: 's1' },
    });
    expect(grant).toBeNull();
    expect(item).toMatchObject({
      title: 'Bash: git push origin main',
      message: '{"command":"git push origin main"}',
      status: 'open',
      level: 'warning',
      tags: ['gate'],
      metadata: { session_id: 's1', beckon_gate: { rule: 'Bash(git push *)', grant_minutes: 15 } },
      assignees: [{ type: 'user', id: ownerId }],
    });
    const decision = item!.form.fields.find((field) => field.id === 'decision')!;
    expect(decision.options!.map((o) => o.value)).toEqual(['allow', 'allow_for', 'deny']);
    expect(item!.form.fields.map((field) => field.id)).toEqual(['decision', 'note']);
    const seconds = (Date.parse(item!.deadline_at) - Date.parse(item!.created_at)) / 1000;
    expect(seconds).toBeCloseTo(120, 0);
  });

  it('refuses a request without a rule or with a timeout out of bounds', async () => {
    const res = await agent.post<{ fields: Record<string, string> }>('/api/gate/requests', {
      title: 'x',
      timeout_seconds: 1,
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.fields).sort()).toEqual(['rule', 'timeout_seconds']);
  });

  it('an "allow for N minutes" answer becomes a grant: the same rule passes, another rule asks', async () => {
    const rule = 'Bash(npm publish*)';
    const first = await ask(agent, { rule, title: 'Bash: npm publish', grant_minutes: 20 });
    await answer(first.item!.id, { decision: 'allow_for', note: 'ship it' });
    const recorded = await agent.post<Grant>('/api/gate/grants', { item_id: first.item!.id });
    expect(recorded.status).toBe(201);
    expect(recorded.body).toMatchObject({
      rule,
      agent_id: agentId,
      item_id: first.item!.id,
      granted_by: { type: 'user', id: ownerId },
      note: 'ship it',
    });
    const answeredAt = (await owner.get<{ answered_at: string }>(`/api/items/${first.item!.id}`)).body
      .answered_at;
    expect(Date.parse(recorded.body.expires_at) - Date.parse(answeredAt)).toBe(20 * 60_000);

    // Recording it again answers the same grant.
    const again = await agent.post<Grant>('/api/gate/grants', { item_id: first.item!.id });
    expect(again.body.id).toBe(recorded.body.id);

    const second = await ask(agent, { rule, title: 'Bash: npm publish --tag next' });
    expect(second).toEqual({ grant: recorded.body, item: null });
    const other = await ask(agent, { rule: 'Bash(npm unpublish*)', title: 'Bash: npm unpublish' });
    expect(other.grant).toBeNull();
    expect(other.item).not.toBeNull();

    const listed = await agent.get<Grant[]>('/api/gate/grants');
    expect(listed.body.map((g) => g.id)).toContain(recorded.body.id);
  });

  it('grants belong to the agent that asked: another agent of the organization is asked', async () => {
    const rule = 'Edit(src/**)';
    const first = await ask(agent, { rule, title: 'Edit: src/a.ts' });
    await answer(first.item!.id, { decision: 'allow_for' });
    expect((await agent.post('/api/gate/grants', { item_id: first.item!.id })).status).toBe(201);

    const otherKey = await f.apiKey(orgId, ownerId);
    const other = server.resource.as(otherKey.token);
    expect((await ask(other, { rule, title: 'Edit: src/b.ts' })).item).not.toBeNull();
    // Nor can it record the first agent's grant, or revoke it.
    const taken = await other.post<{ error: string }>('/api/gate/grants', { item_id: first.item!.id });
    expect(taken.status).toBe(403);
    const mine = (await agent.get<Grant[]>('/api/gate/grants')).body.find((g) => g.rule === rule)!;
    expect((await other.request('DELETE', `/api/gate/grants/${mine.id}`)).status).toBe(404);
    expect((await other.get<Grant[]>('/api/gate/grants')).body).toEqual([]);
    // The organization's people see every agent's grants.
    expect((await owner.get<Grant[]>('/api/gate/grants')).body.map((g) => g.id)).toContain(mine.id);
  });

  it('records no grant for "allow once", a denial, an open request, an item that is no gate request, or an agent answering itself', async () => {
    const refused = async (itemId: string, status: number, error: string) => {
      const res = await agent.post<{ error: string }>('/api/gate/grants', { item_id: itemId });
      expect(res.status, res.text).toBe(status);
      expect(res.body.error).toBe(error);
    };
    const once = await ask(agent, { rule: 'Bash(ls)', title: 'Bash: ls' });
    await answer(once.item!.id, { decision: 'allow' });
    await refused(once.item!.id, 409, 'the answer grants no time');
    const denied = await ask(agent, { rule: 'Bash(rm x)', title: 'Bash: rm x' });
    await answer(denied.item!.id, { decision: 'deny', note: 'no' });
    await refused(denied.item!.id, 409, 'the answer grants no time');
    const open = await ask(agent, { rule: 'Bash(make)', title: 'Bash: make' });
    await refused(open.item!.id, 409, 'the answer grants no time');
    const plain = await agent.post<Item>('/api/items', {
      title: 'not a gate',
      form: { id: 'f', fields: [{ id: 'decision', type: 'text', label: 'x' }] },
    });
    await answer(plain.body.id, { decision: 'allow_for' });
    await refused(plain.body.id, 409, 'not a gate request');
    const selfAnswered = await ask(agent, { rule: 'Bash(sudo *)', title: 'Bash: sudo' });
    await answer(selfAnswered.item!.id, { decision: 'allow_for' }, agent);
    await refused(selfAnswered.item!.id, 409, 'the answer grants no time');
  });

  it("answers 404 to another organization's item and grant, changing nothing", async () => {
    const other = await f.account('owner');
    const theirKey = await f.apiKey(other.org.id, other.user.id);
    const them = server.resource.as(theirKey.token);
    const theirs = await ask(them, { rule: 'Bash(x)', title: 'x' });
    await answer(theirs.item!.id, { decision: 'allow_for' }, server.resource.as(other.token));
    const grant = await them.post<Grant>('/api/gate/grants', { item_id: theirs.item!.id });
    expect(grant.status).toBe(201);
    expect((await agent.post('/api/gate/grants', { item_id: theirs.item!.id })).status).toBe(404);
    expect((await owner.request('DELETE', `/api/gate/grants/${grant.body.id}`)).status).toBe(404);
    expect((await them.get<Grant[]>('/api/gate/grants')).body.map((g) => g.id)).toEqual([grant.body.id]);
  });

  it('an expired or revoked grant lets the next request ask again', async () => {
    const rule = 'mcp__github__*';
    const first = await ask(agent, { rule, title: 'mcp__github__create_issue' });
    await answer(first.item!.id, { decision: 'allow_for' });
    const grant = (await agent.post<Grant>('/api/gate/grants', { item_id: first.item!.id })).body;
    expect((await ask(agent, { rule, title: 'again' })).grant?.id).toBe(grant.id);

    const revoked = await owner.request<Grant>('DELETE', `/api/gate/grants/${grant.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.id).toBe(grant.id);
    const afterRevoke = await ask(agent, { rule, title: 'after revoke' });
    expect(afterRevoke.item).not.toBeNull();

    await answer(afterRevoke.item!.id, { decision: 'allow_for' });
    const second = (await agent.post<Grant>('/api/gate/grants', { item_id: afterRevoke.item!.id })).body;
    await server.database.sql`
      update gate_grants set expires_at = now() - interval '1 second' where id = ${second.id}`;
    expect((await ask(agent, { rule, title: 'after expiry' })).item).not.toBeNull();
    expect((await agent.get<Grant[]>('/api/gate/grants')).body.map((g) => g.rule)).not.toContain(rule);
  });

  it('a person asking with their own session gets their own grants', async () => {
    const rule = 'WebFetch(domain:example.com)';
    const first = await ask(owner, { rule, title: 'WebFetch: example.com' });
    await answer(first.item!.id, { decision: 'allow_for' });
    const grant = await owner.post<Grant>('/api/gate/grants', { item_id: first.item!.id });
    expect(grant.body).toMatchObject({ agent_id: null, rule });
    expect((await ask(owner, { rule, title: 'again' })).grant?.id).toBe(grant.body.id);
    // The agent's credential does not use the person's grant.
    expect((await ask(agent, { rule, title: 'the agent' })).item).not.toBeNull();
  });

  it('replays a request with the same Idempotency-Key', async () => {
    const body = { rule: 'Bash(deploy)', title: 'Bash: deploy' };
    const headers = { 'idempotency-key': 'gate-once' };
    const one = await agent.post<GateRequest>('/api/gate/requests', body, { headers });
    const two = await agent.post<GateRequest>('/api/gate/requests', body, { headers });
    expect(two.status).toBe(201);
    expect(two.body.item!.id).toBe(one.body.item!.id);
  });
});

describe('gate tools over MCP', () => {
  type Rpc<T> = { content: Array<{ text: string }>; structuredContent?: T };
  const call = async <T>(name: string, args: Record<string, unknown>) => {
    const res = await mcpRequest<Rpc<T>>(server.resource.baseUrl, agentToken, 'tools/call', {
      name,
      arguments: args,
    });
    expect(res.body.error, JSON.stringify(res.body.error)).toBeUndefined();
    return JSON.parse(res.body.result!.content[0]!.text) as T;
  };
  let agentToken: string;
  beforeAll(async () => {
    agentToken = (await f.apiKey(orgId, ownerId)).token;
  });

  it('service.gate_request asks, service.gate_grant records the answer, the next request passes', async () => {
    const rule = 'delete_table';
    const asked = await call<GateRequest>('service.gate_request', { rule, title: 'delete_table users' });
    expect(asked.item?.status).toBe('open');
    await answer(asked.item!.id, { decision: 'allow_for', note: 'once more is fine' });
    const grant = await call<Grant>('service.gate_grant', { item_id: asked.item!.id });
    expect(grant).toMatchObject({ rule, note: 'once more is fine' });
    const again = await call<GateRequest>('service.gate_request', { rule, title: 'delete_table orders' });
    expect(again).toEqual({ grant, item: null });
  });
});
