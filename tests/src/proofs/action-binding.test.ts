import { createHash } from 'node:crypto';
import { type BeckonClient, createClient, verifyDecision } from '@beckon/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, receiverPool, startTestServer, type TestServer } from '../harness';
import { yesNoForm } from '../sdk/helpers';

let server: TestServer;
let person: HttpClient;
let beckon: BeckonClient;
let agent: BeckonClient;
let other: HttpClient;
const receivers = receiverPool();

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  const key = await f.apiKey(account.org.id, account.user.id);
  person = server.resource.as(account.token);
  const client = (token: string) => createClient({ baseUrl: server.resource.baseUrl, token });
  beckon = client(account.token);
  agent = client(key.token);
  other = server.resource.as((await f.account('owner')).token);
});
afterAll(async () => {
  await receivers.closeAll();
  await server?.close();
});

/** The digest written out by hand: RFC 8785 form of the payload, then SHA-256. */
const sha = (canonical: string) => createHash('sha256').update(canonical, 'utf8').digest('hex');
const DEPLOY = {
  kind: 'deploy',
  args: { service: 'api', version: '2.4.1', replicas: 3 },
  policy_version: 'prod-7',
};
const DEPLOY_DIGEST = sha(
  '{"args":{"replicas":3,"service":"api","version":"2.4.1"},"kind":"deploy","policy_version":"prod-7"}',
);

type Item = { id: string; action: Record<string, unknown> | null };

describe('an item bound to an action', () => {
  it('stores the action as given and its JCS SHA-256 digest', async () => {
    const res = await person.post<Item>('/api/items', {
      title: 'Deploy api 2.4.1?',
      form: yesNoForm,
      action: DEPLOY,
    });
    expect(res.status).toBe(201);
    expect(res.body.action).toEqual({ ...DEPLOY, digest: DEPLOY_DIGEST });
    expect((await person.get<Item>(`/api/items/${res.body.id}`)).body.action).toEqual(res.body.action);
    // Key order and number spelling do not change the digest; a policy version is optional.
    const reordered = await person.post<Item>('/api/items', {
      title: 'same',
      action: {
        policy_version: 'prod-7',
        args: { version: '2.4.1', replicas: 3.0, service: 'api' },
        kind: 'deploy',
      },
    });
    expect(reordered.body.action?.digest).toBe(DEPLOY_DIGEST);
    const bare = await person.post<Item>('/api/items', { title: 'bare', action: { kind: 'noop', args: {} } });
    expect(bare.body.action).toEqual({
      kind: 'noop',
      args: {},
      policy_version: null,
      digest: sha('{"args":{},"kind":"noop"}'),
    });
    expect((await person.post<Item>('/api/items', { title: 'none' })).body.action).toBeNull();
  });

  it('answers 400 for a malformed action', async () => {
    const fields = async (action: unknown) => {
      const res = await person.post<{ fields: Record<string, string> }>('/api/items', { title: 'x', action });
      expect(res.status).toBe(400);
      return Object.keys(res.body.fields);
    };
    expect(await fields({ args: {} })).toEqual(['action.kind']);
    expect(await fields({ kind: 'deploy', args: [1, 2] })).toEqual(['action.args']);
    expect(await fields({ kind: 'deploy', args: {}, extra: 1 })).toEqual(['action.extra']);
    expect(await fields({ kind: '', args: {} })).toEqual(['action.kind']);
    expect(await fields({ kind: 'big', args: { blob: 'x'.repeat(17_000) } })).toEqual(['action.args']);
  });

  it('names the decided digest in the callback', async () => {
    const hook = await receivers.start();
    const item = (
      await person.post<Item>('/api/items', {
        title: 'cb',
        form: yesNoForm,
        action: DEPLOY,
        callback_url: hook.url,
      })
    ).body;
    await person.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    const [request] = await hook.waitFor(1);
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({
      item_id: item.id,
      action_digest: DEPLOY_DIGEST,
    });
  });

  it('lets the agent check, before acting, that the decision is for the action it will run', async () => {
    const question = await agent.ask({ title: 'Deploy?', form: yesNoForm, action: DEPLOY });
    // Nobody decided yet.
    expect(await verifyDecision(question.item, DEPLOY)).toEqual({
      ok: false,
      reason: 'not_answered',
      digest: DEPLOY_DIGEST,
      decided: DEPLOY_DIGEST,
    });
    await beckon.answer(question.item.id, { ok: true });
    const outcome = await question.waitForAnswer({ timeoutMs: 10_000 });
    expect(await verifyDecision(outcome, DEPLOY)).toEqual({ ok: true, digest: DEPLOY_DIGEST });
    // The same kind with other arguments, or another policy version, was not decided.
    const tampered = { ...DEPLOY, args: { ...DEPLOY.args, replicas: 30 } };
    expect(await verifyDecision(outcome, tampered)).toMatchObject({
      ok: false,
      reason: 'mismatch',
      decided: DEPLOY_DIGEST,
    });
    expect((await verifyDecision(outcome, { ...DEPLOY, policy_version: 'prod-8' })).ok).toBe(false);

    const unbound = await agent.ask({ title: 'No action', form: yesNoForm });
    await beckon.answer(unbound.item.id, { ok: true });
    expect(await verifyDecision(await agent.get(unbound.item.id), DEPLOY)).toMatchObject({
      ok: false,
      reason: 'no_action',
      decided: null,
    });
  });

  it('never shows another organization the action', async () => {
    const item = (await person.post<Item>('/api/items', { title: 'mine', action: DEPLOY })).body;
    expect((await other.get(`/api/items/${item.id}`)).status).toBe(404);
  });
});
