import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AuditVerdict } from '@beckon/contracts/audit/audit.contract';
import { type ChainedEntry, GENESIS_HASH, verifyChain } from '@beckon/contracts/proofs/audit-chain';
import { recordAudit } from '@beckon/server/modules/audit/audit.service';
import { applyRetention } from '@beckon/server/modules/retention/apply-retention';
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishedRun, type HttpClient, signedInCallers, startTestServer, type TestServer } from '../harness';

let server: TestServer;
let owner: HttpClient;
let member: HttpClient;
let other: HttpClient;
let orgId: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ owner, member, other, orgId } = await signedInCallers(server.database.db, server.resource));
});
afterAll(() => server?.close());

const verify = async (client = owner) => {
  const res = await client.get<AuditVerdict>('/api/audit/verify');
  expect(res.status).toBe(200);
  return res.body;
};

type Line =
  | ({ type: 'entry' } & ChainedEntry)
  | { type: 'anchor' | 'head'; org_id: string; seq: number; hash: string };
const exported = async (client = owner) => {
  const res = await client.get<string>('/api/audit/export');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/jsonl; charset=utf-8');
  return res.text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);
};

/** Some changes through the API: items, an answer, a setting. */
async function busy(client: HttpClient, n: number) {
  for (let i = 0; i < n; i += 1) {
    const item = (await client.post<{ id: string }>('/api/items', { title: `change ${i}` })).body;
    await client.post(`/api/items/${item.id}/ack`);
    await client.put(`/api/settings/chain.${i}`, { value: { i, note: 'ünïcode €' } });
  }
}

describe('the audit chain', () => {
  it('links every entry of the organization to the one before it', async () => {
    await busy(owner, 3);
    await busy(other, 1);
    const verdict = await verify();
    expect(verdict).toEqual({
      valid: true,
      entries: verdict.head?.seq,
      anchor: { seq: 0, hash: GENESIS_HASH },
      last: verdict.head,
      head: { seq: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
      broken: null,
    });
    expect(verdict.entries).toBeGreaterThanOrEqual(9);
    // Each organization has its own chain, from 1.
    expect((await verify(other)).entries).toBe(3);
  });

  it('exports the chain as JSON Lines that verify without the server', async () => {
    const lines = await exported();
    const [anchor, ...rest] = lines;
    const head = rest.pop();
    expect(anchor).toEqual({ type: 'anchor', org_id: orgId, seq: 0, hash: GENESIS_HASH });
    const entries = rest as ChainedEntry[];
    expect(entries.every((e) => e.org_id === orgId)).toBe(true);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    expect(head).toEqual({ type: 'head', org_id: orgId, ...(await verify()).head });
    const offline = await verifyChain(entries, anchor as Line, head as Line);
    expect(offline).toMatchObject({ valid: true, entries: entries.length, broken: null });
    // An entry changed in the file is caught offline too.
    const forged = entries.map((e, i) => (i === 2 ? { ...e, action: 'item.answer' } : e));
    expect((await verifyChain(forged, anchor as Line, head as Line)).broken).toEqual({
      seq: 3,
      id: entries[2]?.id,
      reason: 'hash',
    });
  });

  it('finds an entry changed by an UPDATE in SQL and names it', async () => {
    const { sql } = server.database;
    const [target] = await sql<{ id: string; data: Record<string, unknown> }[]>`
      select id, data from audit_entries where org_id = ${orgId} and seq = 4`;
    await sql`update audit_entries set data = data || '{"forged": true}' where id = ${target?.id ?? null}`;
    expect(await verify()).toMatchObject({
      valid: false,
      entries: 3,
      last: { seq: 3 },
      broken: { seq: 4, id: target?.id, reason: 'hash' },
    });
    // Rewriting the hash too does not help: the next entry no longer follows it.
    await sql`update audit_entries set hash = ${'f'.repeat(64)} where id = ${target?.id ?? null}`;
    expect((await verify()).broken).toEqual({ seq: 4, id: target?.id, reason: 'hash' });
    const [saved] = await sql<{ hash: string }[]>`
      select prev_hash as hash from audit_entries where org_id = ${orgId} and seq = 5`;
    await sql`update audit_entries set data = ${sql.json(target?.data as never)}, hash = ${saved?.hash ?? ''}
               where id = ${target?.id ?? null}`;
    expect((await verify()).valid).toBe(true);
  });

  it('finds a removed entry, in the middle or at the end', async () => {
    const { sql } = server.database;
    const head = (await verify()).head?.seq ?? 0;
    const [middle] = await sql<Record<string, unknown>[]>`
      delete from audit_entries where org_id = ${orgId} and seq = 2 returning *`;
    expect(await verify()).toMatchObject({
      valid: false,
      entries: 1,
      broken: { seq: 2, id: null, reason: 'missing' },
    });
    await sql`insert into audit_entries ${sql(middle as Record<string, never>)}`;
    expect((await verify()).valid).toBe(true);

    await sql`delete from audit_entries where org_id = ${orgId} and seq = ${head}`;
    expect(await verify()).toMatchObject({
      valid: false,
      entries: head - 1,
      broken: { seq: head, id: null, reason: 'head' },
    });
  });

  it('needs audit.read, and answers 401 without credentials', async () => {
    for (const path of ['/api/audit/verify', '/api/audit/export']) {
      const denied = await member.get(path);
      expect(denied.status).toBe(403);
      const permissionDenied = { error: 'permission denied', code: 'permission_denied' };
      expect(denied.body).toEqual({ ...permissionDenied, required: 'audit.read' });
      expect((await server.resource.get(path)).status).toBe(401);
    }
    expect((await owner.get('/api/audit/export?from=1')).status).toBe(400);
  });
});

describe('concurrent writers', () => {
  it('keep one linear chain per organization', async () => {
    const { factories } = await signedInCallers(server.database.db, server.resource);
    const account = await factories.account('owner');
    const client = server.resource.as(account.token);
    const system = { type: 'system' as const, id: null };
    // Requests through the API and direct writes, all at once, on several connections.
    await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => client.post('/api/items', { title: `parallel ${i}` })),
      ...Array.from({ length: 12 }, (_, i) => client.put(`/api/settings/parallel.${i}`, { value: i })),
      ...Array.from({ length: 24 }, (_, i) =>
        recordAudit(server.database.sql, {
          orgId: account.org.id,
          action: 'test.write',
          actor: system,
          data: { i },
        }),
      ),
    ]);
    const rows = await server.database.sql<{ seq: string; prev_hash: string; hash: string }[]>`
      select seq, prev_hash, hash from audit_entries where org_id = ${account.org.id} order by seq`;
    const expected = rows.length;
    expect(expected).toBeGreaterThanOrEqual(48);
    expect(rows.map((r) => Number(r.seq))).toEqual(rows.map((_, i) => i + 1));
    rows.forEach((row, i) => {
      expect(row.prev_hash).toBe(i === 0 ? GENESIS_HASH : rows[i - 1]?.hash);
    });
    expect(await verify(client)).toMatchObject({ valid: true, entries: expected, broken: null });
  });
});

describe('retention', () => {
  it('removes the start of the chain and anchors the rest to it', async () => {
    const { factories } = await signedInCallers(server.database.db, server.resource);
    const account = await factories.account('owner');
    const client = server.resource.as(account.token);
    await busy(client, 2);
    const { sql } = server.database;
    await sql`update audit_entries set created_at = now() - interval '400 days'
               where org_id = ${account.org.id} and seq <= 3`;
    await applyRetention(server.deps);
    const verdict = await verify(client);
    expect(verdict).toMatchObject({ valid: true, anchor: { seq: 3 }, entries: (verdict.head?.seq ?? 0) - 3 });
    const lines = await exported(client);
    expect(lines[0]).toMatchObject({ type: 'anchor', seq: 3, hash: verdict.anchor.hash });
    expect(lines[1]).toMatchObject({ type: 'entry', seq: 4, prev_hash: verdict.anchor.hash });
  });
});

const BIN = fileURLToPath(new URL('../../../sdk/bin/beckon.mjs', import.meta.url));

/** Runs `beckon` as a child process, as an auditor would. */
function beckon(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
  return finishedRun(child);
}

describe('beckon audit verify', () => {
  it('checks the chain streamed from the server, and a saved export offline', async () => {
    const { factories } = await signedInCallers(server.database.db, server.resource);
    const account = await factories.account('owner');
    const client = server.resource.as(account.token);
    await busy(client, 2);
    const env = { BECKON_URL: server.resource.baseUrl, BECKON_TOKEN: account.token };
    const head = (await verify(client)).head;

    const valid = await beckon(['audit', 'verify'], env);
    expect(valid).toMatchObject({ code: 0, stderr: '' });
    expect(valid.stdout).toBe(
      `audit chain valid: ${head?.seq} entries (seq 1..${head?.seq}), head ${head?.hash}\n`,
    );

    // A saved export with one entry's action rewritten.
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'beckon-audit-')), 'audit.jsonl');
    const lines = (await client.get<string>('/api/audit/export')).text.split('\n');
    const third = JSON.parse(lines[3] ?? '{}') as ChainedEntry;
    lines[3] = JSON.stringify({ ...third, actor_id: null, actor_type: 'system' });
    await writeFile(file, lines.join('\n'));
    const offline = await beckon(['audit', 'verify', '--file', file, '--json'], {});
    expect(offline.code).toBe(6);
    expect(JSON.parse(offline.stdout)).toMatchObject({
      valid: false,
      org_id: account.org.id,
      broken: { seq: 3, id: third.id, reason: 'hash' },
    });
    // Cut off before its head line: refused rather than called valid.
    await writeFile(file, lines.slice(0, 3).join('\n'));
    const cut = await beckon(['audit', 'verify', '--file', file], {});
    expect(cut.code).toBe(1);
    expect(cut.stderr).toContain('without its head line');

    await server.database.sql`update audit_entries set action = 'item.answer'
                               where org_id = ${account.org.id} and seq = 5`;
    const broken = await beckon(['audit', 'verify'], env);
    expect(broken.code).toBe(6);
    expect(broken.stdout).toMatch(
      /^audit chain BROKEN at seq 5 \(entry [0-9a-f-]{36}\): the entry was changed/,
    );

    const denied = await beckon(['audit', 'verify'], { ...env, BECKON_TOKEN: 'bk_wrong' });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('answered 401');
  });
});

describe('signed checkpoints', () => {
  it('sign the head of a chain that verifies, and refuse a broken one', async () => {
    const { factories } = await signedInCallers(server.database.db, server.resource);
    const account = await factories.account('owner');
    const client = server.resource.as(account.token);
    await busy(client, 1);
    const res = await client.post<{ checkpoint: string; seq: number; hash: string; jwks_url: string }>(
      '/api/audit/checkpoint',
    );
    expect(res.status).toBe(200);
    const head = (await verify(client)).head;
    expect(res.body).toMatchObject({ seq: head?.seq, hash: head?.hash });
    const jwks = (
      await server.resource.get<JSONWebKeySet>(
        new URL(res.body.jwks_url).pathname + new URL(res.body.jwks_url).search,
      )
    ).body;
    const { payload } = await jwtVerify(res.body.checkpoint, createLocalJWKSet(jwks), {
      typ: 'beckon-audit-checkpoint+jwt',
      algorithms: ['EdDSA'],
    });
    expect(payload).toMatchObject({
      org_id: account.org.id,
      seq: head?.seq,
      hash: head?.hash,
      anchor_seq: 0,
      anchor_hash: GENESIS_HASH,
    });

    await server.database.sql`update audit_entries set actor_id = null
                               where org_id = ${account.org.id} and seq = 2`;
    const refused = await client.post('/api/audit/checkpoint');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ broken: { seq: 2, reason: 'hash' } });
    expect((await member.post('/api/audit/checkpoint')).status).toBe(403);
  });
});
