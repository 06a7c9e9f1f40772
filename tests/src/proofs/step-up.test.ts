import { expiresAt, signLink } from '@beckon/server/mail/links';
import { pushAnswerToken } from '@beckon/server/modules/push/push-token';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Factories, FakeSlack, HttpClient, TestServer } from '../harness';
import { buttons, click, connect, interact, linkSlack, onPlan, startSlackServer } from '../slack/setup';

/**
 * Items whose answer needs a fresh verification (`require_reauth`): only a person's dashboard
 * session, verified recently enough, answers them; every other way in is refused or points to
 * the item page. The passkey side of it runs in a browser (passkeys.test.ts).
 */

type Item = {
  id: string;
  status: string;
  require_reauth: { method: string; within_minutes: number } | null;
  receipt: string | null;
};

let server: TestServer;
let fake: FakeSlack;
let f: Factories;
let owner: HttpClient;
let agent: HttpClient;
let ownerId: string;
let orgId: string;
let sessionId: string;
let opsId: string;

const YES_NO = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'Wire the money?', required: true }] };
const PASSKEY = { method: 'passkey', within_minutes: 5 };
const ANY = { method: 'any', within_minutes: 5 };
const TEAM = { id: 'TSTEP', name: 'Step-up', channels: { CRISK: 'risk' }, users: { UOWNER: 'owner' } };

beforeAll(async () => {
  ({ server, fake, f } = await startSlackServer());
  const team = await f.team(server.resource);
  await onPlan(server, team.org.id, 'team');
  owner = team.owner;
  ownerId = team.user.id;
  orgId = team.org.id;
  const [session] = await server.database.sql<{ id: string }[]>`
    select id from sessions where user_id = ${ownerId} order by created_at desc limit 1`;
  sessionId = session!.id;
  agent = server.resource.as((await f.apiKey(orgId, ownerId)).token);
  await connect(server, fake, owner, TEAM);
  opsId = (await owner.post<{ id: string }>('/api/channels', { name: 'risk', mode: 'open' })).body.id;
  await owner.put(`/api/slack/routes/${opsId}`, { slack_channel_id: 'CRISK' });
  await linkSlack(server, fake, owner, TEAM.id, 'UOWNER');
}, 120_000);
afterAll(async () => {
  await server?.close();
  await fake?.close();
});

const ask = async (body: Record<string, unknown>) => {
  const res = await agent.post<Item>('/api/items', { title: 'Wire 40,000 EUR?', form: YES_NO, ...body });
  expect(res.status).toBe(201);
  return res.body;
};
const current = async (id: string) => (await owner.get<Item>(`/api/items/${id}`)).body;
const refusal = (item: Item, rule: object) => ({
  error: expect.stringContaining(`answer it at http://localhost:5173/items/${item.id}`),
  code: 'reauth_required',
  require_reauth: rule,
  item_url: `http://localhost:5173/items/${item.id}`,
});
/** The owner's session as if signed in `minutes` ago (and never verified since). */
const signedInAgo = (minutes: number) => server.database.sql`
  update sessions set created_at = now() - make_interval(mins => ${minutes}), verified_at = null,
                      verified_method = null
   where id = ${sessionId}`;

describe('an item that requires a fresh verification', () => {
  it('is refused to an API key, and to a session not verified by a passkey', async () => {
    const item = await ask({ require_reauth: PASSKEY });
    expect(item.require_reauth).toEqual(PASSKEY);
    const byAgent = await agent.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    expect(byAgent.status).toBe(403);
    expect(byAgent.body).toEqual(refusal(item, PASSKEY));
    // The owner signed in by another method just now: "passkey" still refuses.
    await signedInAgo(0);
    const bySession = await owner.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    expect(bySession.status).toBe(403);
    expect(bySession.body).toEqual(refusal(item, PASSKEY));
    expect((await current(item.id)).status).toBe('open');
  });

  it('with "any": a recent sign-in answers, its method and time in the receipt; an old one is refused', async () => {
    const item = await ask({ require_reauth: { method: 'any' } });
    expect(item.require_reauth).toEqual(ANY);
    await signedInAgo(6);
    const stale = await owner.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    expect(stale.status).toBe(403);
    expect(stale.body).toEqual(refusal(item, ANY));

    await signedInAgo(1);
    const answered = await owner.post<Item>(`/api/items/${item.id}/answer`, { values: { ok: true } });
    expect(answered.status).toBe(200);
    const claims = decodeJwt(answered.body.receipt ?? '');
    expect(claims).toMatchObject({ auth_method: 'session', amr: ['login'] });
    const [session] = await server.database.sql<{ created_at: Date }[]>`
      select created_at from sessions where id = ${sessionId}`;
    expect(claims.auth_time).toBe(Math.floor(session!.created_at.getTime() / 1000));
  });

  it("takes its template's rule, else its channel's; its own wins", async () => {
    const template = await owner.post('/api/templates', {
      name: 'wire',
      fields: { title: 'Wire?', form: YES_NO, require_reauth: { method: 'passkey', within_minutes: 2 } },
    });
    expect(template.status).toBe(200);
    expect((await ask({ template: 'wire', title: undefined })).require_reauth).toEqual({
      method: 'passkey',
      within_minutes: 2,
    });
    const channel = await owner.post<{ require_reauth: unknown }>('/api/channels', {
      name: 'payments',
      mode: 'open',
      require_reauth: ANY,
    });
    expect(channel.status).toBe(201);
    expect(channel.body.require_reauth).toEqual(ANY);
    expect((await ask({ channel: 'payments' })).require_reauth).toEqual(ANY);
    expect((await ask({ channel: 'payments', require_reauth: PASSKEY })).require_reauth).toEqual(PASSKEY);
    expect((await ask({})).require_reauth).toBeNull();
  });
});

describe('answering it elsewhere points to its page', () => {
  it("a mail's answer link refuses, with the item page", async () => {
    const item = await ask({ require_reauth: ANY });
    const token = await signLink(server.deps.mailLinkKey, {
      k: 'answer',
      o: orgId,
      u: ownerId,
      i: item.id,
      n: uuidv7(),
      e: expiresAt(new Date(), 1),
      c: 0,
    });
    const url = `${server.resource.baseUrl}/api/email/answer?token=${encodeURIComponent(token)}`;
    const res = await fetch(url, { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(409);
    const page = await res.text();
    expect(page).toContain('must be confirmed in Beckon');
    expect(page).toContain(`http://localhost:5173/items/${item.id}`);
    expect((await current(item.id)).status).toBe('open');
  });

  it("a notification's answer token is refused with the item page", async () => {
    const item = await ask({ require_reauth: ANY });
    const token = await pushAnswerToken(server.deps, {
      id: uuidv7(),
      org_id: orgId,
      user_id: ownerId,
      item_id: item.id,
      deadline_at: null,
    });
    const res = await server.resource.as(null).post('/api/push/answer', { token, choice: 0 });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(refusal(item, ANY));
    expect((await current(item.id)).status).toBe('open');
  });

  it('Slack shows only a link to the page, and a forged answer click is told to go there', async () => {
    const item = await ask({ require_reauth: ANY, channel_id: opsId });
    const message = await fake.waitForMention('chat.postMessage', item.id);
    const found = buttons(message.params.blocks);
    expect(Object.keys(found)).toEqual(['Answer in Beckon']);

    const forged = {
      action_id: 'beckon.answer.0',
      value: JSON.stringify({ item: item.id, values: { ok: true } }),
    };
    expect((await interact(server, click(TEAM.id, 'UOWNER', 'CRISK', forged))).status).toBe(200);
    const told = await fake.waitForMention('chat.postEphemeral', item.id);
    expect(told.params.text).toBe(
      `This decision must be confirmed in Beckon, with your passkey or a fresh sign-in: http://localhost:5173/items/${item.id}`,
    );
    expect((await current(item.id)).status).toBe('open');
  });
});
