import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalize } from '@beckon/contracts/proofs/jcs';
import { createClient } from '@beckon/sdk';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Factories,
  finishedRun,
  type HttpClient,
  receiverPool,
  startTestServer,
  type TestServer,
} from '../harness';

/**
 * Receipts are checked here with `jose`, a JOSE library the server does not sign with (it signs
 * with node:crypto), against the keys the organization publishes.
 */

let server: TestServer;
let owner: HttpClient;
let member: HttpClient;
let other: HttpClient;
let orgId: string;
let otherOrgId: string;
let userId: string;
let agentKey: string;
const receivers = receiverPool();

const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };
const ACTION = { kind: 'deploy', args: { service: 'api', version: '2.4.1' } };

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  const f = new Factories(server.database.db);
  const account = await f.account('owner');
  orgId = account.org.id;
  userId = account.user.id;
  owner = server.resource.as(account.token);
  agentKey = (await f.apiKey(orgId, userId)).token;
  const colleague = await f.user();
  await f.member(orgId, colleague.id, 'member');
  member = server.resource.as((await f.session(colleague.id, orgId)).token);
  const stranger = await f.account('owner');
  otherOrgId = stranger.org.id;
  other = server.resource.as(stranger.token);
});
afterAll(async () => {
  await receivers.closeAll();
  await server?.close();
});

type Item = { id: string; status: string; receipt: string | null; action: { digest: string } | null };

const jwks = async (org = orgId) => {
  const res = await server.resource.get<JSONWebKeySet>(`/.well-known/jwks.json?org_id=${org}`);
  expect(res.status).toBe(200);
  return res.body;
};
const verify = async (receipt: string, org = orgId) =>
  (
    await jwtVerify(receipt, createLocalJWKSet(await jwks(org)), {
      issuer: 'http://localhost:3000',
      typ: 'beckon-receipt+jwt',
      algorithms: ['EdDSA'],
    })
  ).payload;

const ask = async (body: Record<string, unknown> = {}) =>
  (await owner.post<Item>('/api/items', { title: 'Deploy?', form: FORM, action: ACTION, ...body })).body;

describe('decision receipts', () => {
  it('sign each answer over the item, the action digest, the outcome, who and how', async () => {
    const hook = await receivers.start();
    const item = await ask({ callback_url: hook.url });
    expect(item.receipt).toBeNull();
    expect((await owner.get(`/api/items/${item.id}/receipt`)).body).toEqual({
      error: 'no receipt: the item is not decided',
      code: 'no_receipt',
    });
    const answered = (
      await owner.post<Item & { answered_at: string }>(`/api/items/${item.id}/answer`, {
        values: { ok: true },
      })
    ).body;
    const receipt = answered.receipt ?? '';
    expect(receipt.split('.')).toHaveLength(3);

    const claims = await verify(receipt);
    expect(claims).toEqual({
      iss: 'http://localhost:3000',
      sub: item.id,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iat: expect.any(Number),
      exp: (claims.iat ?? 0) + 86_400,
      org_id: orgId,
      item_id: item.id,
      action_digest: item.action?.digest,
      outcome: 'answered',
      response_digest: createHash('sha256')
        .update(canonicalize({ ok: true }))
        .digest('hex'),
      decided_by: { type: 'user', id: userId },
      answered_via: null,
      auth_method: 'session',
      // The factory's session: its sign-in is the last proof of presence.
      amr: ['login'],
      auth_time: expect.any(Number),
      decided_at: answered.answered_at,
    });
    expect(decodeProtectedHeader(receipt)).toMatchObject({ alg: 'EdDSA', typ: 'beckon-receipt+jwt' });

    // The same receipt in the item, its own route and the callback.
    expect((await owner.get<Item>(`/api/items/${item.id}`)).body.receipt).toBe(receipt);
    expect((await member.get(`/api/items/${item.id}/receipt`)).body).toEqual({
      item_id: item.id,
      receipt,
      jwks_url: `http://localhost:3000/.well-known/jwks.json?org_id=${orgId}`,
    });
    const [callback] = await hook.waitFor(1);
    expect(JSON.parse(callback?.body ?? '{}')).toMatchObject({ receipt, action_digest: item.action?.digest });
  });

  it('travel in the item.answered webhook and the SDK’s outcome, verifiable there', async () => {
    const hook = await receivers.start();
    const webhook = { name: 'receipts', url: hook.url, events: ['item.answered'] };
    expect((await owner.post('/api/webhooks', webhook)).status).toBe(201);
    const item = await ask();
    const agent = createClient({ baseUrl: server.resource.baseUrl, token: agentKey });
    const outcome = agent.waitForAnswer(item.id, { timeoutMs: 20_000 });
    await owner.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    const [delivery] = await hook.waitFor(1);
    const event = JSON.parse(delivery?.body ?? '{}') as { type: string; data: { item: Item } };
    expect(event.type).toBe('item.answered');
    const receipt = event.data.item.receipt ?? '';
    expect(await verify(receipt)).toMatchObject({ item_id: item.id, outcome: 'answered' });
    expect((await outcome).item.receipt).toBe(receipt);
  });

  it('sign a dismissal, and a restored item has none', async () => {
    const item = await ask();
    const dismissed = (await owner.post<Item>(`/api/items/${item.id}/dismiss`)).body;
    expect(await verify(dismissed.receipt ?? '')).toMatchObject({
      outcome: 'dismissed',
      response_digest: null,
      decided_by: { type: 'user', id: userId },
    });
    expect((await owner.post<Item>(`/api/items/${item.id}/restore`)).body.receipt).toBeNull();
    expect((await owner.get(`/api/items/${item.id}/receipt`)).status).toBe(404);
  });

  it('sign the timeout policy’s answer as the policy’s, in the worker', async () => {
    const hook = await receivers.start();
    const item = await ask({
      deadline_at: new Date(Date.now() + 1500).toISOString(),
      on_timeout: { action: 'answer', values: { ok: false } },
      callback_url: hook.url,
    });
    const [callback] = await hook.waitFor(1);
    const { receipt } = JSON.parse(callback?.body ?? '{}') as { receipt: string };
    expect(await verify(receipt)).toMatchObject({
      item_id: item.id,
      outcome: 'answered',
      decided_by: { type: 'policy', id: null },
      auth_method: 'policy',
      action_digest: item.action?.digest,
      response_digest: createHash('sha256')
        .update(canonicalize({ ok: false }))
        .digest('hex'),
    });
    expect((await owner.get<Item>(`/api/items/${item.id}`)).body.receipt).toBe(receipt);
  });

  it('fail on any change, and with another organization’s keys', async () => {
    const item = await ask();
    const { receipt } = (await owner.post<Item>(`/api/items/${item.id}/answer`, { values: { ok: false } }))
      .body;
    const [header, payload, signature] = (receipt ?? '').split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, response_digest: null })).toString('base64url');
    await expect(verify(`${header}.${forged}.${signature}`)).rejects.toThrow(/signature verification failed/);
    await ask(); // the other organization has a key too once it decides something
    const theirs = (await other.post<Item>('/api/items', { title: 't', form: FORM })).body;
    await other.post(`/api/items/${theirs.id}/answer`, { values: { ok: true } });
    await expect(verify(receipt ?? '', otherOrgId)).rejects.toThrow(/no applicable key found/);
    expect((await other.get(`/api/items/${item.id}/receipt`)).status).toBe(404);
  });

  it('still verify after the key is rotated; new ones use the new key', async () => {
    const before = await ask();
    const { receipt: old } = (
      await owner.post<Item>(`/api/items/${before.id}/answer`, { values: { ok: true } })
    ).body;
    expect((await member.post('/api/receipts/rotate-key')).status).toBe(403);
    const rotated = await owner.post<{ kid: string }>('/api/receipts/rotate-key');
    expect(rotated.status).toBe(200);
    const after = await ask();
    const { receipt: fresh } = (
      await owner.post<Item>(`/api/items/${after.id}/answer`, { values: { ok: true } })
    ).body;
    expect(decodeProtectedHeader(fresh ?? '').kid).toBe(rotated.body.kid);
    expect(decodeProtectedHeader(old ?? '').kid).not.toBe(rotated.body.kid);
    expect((await jwks()).keys.map((k) => k.kid)).toContain(decodeProtectedHeader(old ?? '').kid);
    await expect(verify(old ?? '')).resolves.toMatchObject({ item_id: before.id });
    await expect(verify(fresh ?? '')).resolves.toMatchObject({ item_id: after.id });
  });

  it('fail closed: an answer whose receipt cannot be signed is not recorded', async () => {
    const item = await ask();
    await server.database
      .sql`update receipt_keys set private_key = 'AAAA' where org_id = ${orgId} and retired_at is null`;
    const res = await owner.post(`/api/items/${item.id}/answer`, { values: { ok: true } });
    expect(res.status).toBe(500);
    expect((await owner.get<Item>(`/api/items/${item.id}`)).body).toMatchObject({
      status: 'open',
      receipt: null,
    });
    const audit = await server.database.sql`
      select 1 from audit_entries where item_id = ${item.id} and action = 'item.answer'`;
    expect(audit).toHaveLength(0);
    // A new key (rotation) lets decisions through again.
    await owner.post('/api/receipts/rotate-key');
    expect(
      (await owner.post<Item>(`/api/items/${item.id}/answer`, { values: { ok: true } })).body.status,
    ).toBe('answered');
  });

  it('publishes keys to anyone, per organization', async () => {
    const res = await server.resource.get<JSONWebKeySet>(`/.well-known/jwks.json?org_id=${orgId}`);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    for (const key of res.body.keys) {
      expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
      expect(key).not.toHaveProperty('d');
    }
    expect((await server.resource.get('/.well-known/jwks.json')).status).toBe(400);
    expect((await server.resource.get(`/.well-known/jwks.json?org_id=${crypto.randomUUID()}`)).body).toEqual({
      keys: [],
    });
  });
});

const BIN = fileURLToPath(new URL('../../../sdk/bin/beckon.mjs', import.meta.url));

function beckon(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, BECKON_URL: '', ...env } });
  return finishedRun(child);
}

describe('beckon verify', () => {
  it('checks a receipt with the published keys, offline with a saved key set, and refuses without keys', async () => {
    const item = await ask();
    const { receipt } = (await owner.post<Item>(`/api/items/${item.id}/answer`, { values: { ok: true } }))
      .body;
    const dir = await mkdtemp(path.join(tmpdir(), 'beckon-receipt-'));
    const file = path.join(dir, 'receipt.jws');
    await writeFile(file, `${receipt}\n`);
    const env = { BECKON_URL: server.resource.baseUrl };

    const valid = await beckon(['verify', file], env);
    expect(valid.code).toBe(0);
    expect(valid.stdout).toMatch(
      new RegExp(
        `^receipt valid: item ${item.id} answered by user ${userId} \\(session, verified by login at [0-9TZ:.-]+\\) at .*; action ${item.action?.digest}; key `,
      ),
    );

    const keys = path.join(dir, 'jwks.json');
    await writeFile(keys, JSON.stringify(await jwks()));
    const offline = await beckon(['verify', file, '--jwks', keys, '--json']);
    expect(offline.code).toBe(0);
    expect(JSON.parse(offline.stdout)).toMatchObject({
      valid: true,
      expired: false,
      claims: { item_id: item.id },
    });

    const [header, payload, signature] = (receipt ?? '').split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, outcome: 'dismissed' })).toString('base64url');
    await writeFile(file, `${header}.${forged}.${signature}`);
    const invalid = await beckon(['verify', file, '--jwks', keys]);
    expect(invalid.code).toBe(6);
    expect(invalid.stdout).toContain('receipt INVALID: the signature does not verify');

    // Keys out of reach: a refusal, not a pass.
    await writeFile(file, receipt ?? '');
    const unreachable = await beckon(['verify', file], { BECKON_URL: 'http://127.0.0.1:9' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('refusing to verify');
  });
});
