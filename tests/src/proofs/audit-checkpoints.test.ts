import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { AuditVerdict } from '@beckon/contracts/audit/audit.contract';
import { type ChainedEntry, contentDigest, linkHash } from '@beckon/contracts/proofs/audit-chain';
import { loadEnv } from '@beckon/server/env';
import { crontab } from '@beckon/server/jobs/worker';
import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, finishedRun, type HttpClient, startTestServer, type TestServer } from '../harness';

/**
 * The audit_checkpoints job (server/src/modules/audit/audit-checkpoints.ts), run on the queue:
 * each chain that advanced gets a signed checkpoint as its next entry, which verifies like the
 * ones POST /api/audit/checkpoint hands out and exposes a chain rewritten after it.
 */

let server: TestServer;
let factories: Factories;

beforeAll(async () => {
  server = await startTestServer({ worker: true });
  factories = new Factories(server.database.db);
});
afterAll(() => server?.close());

/** Runs the job once on the worker and waits until it is done (a job that threw stays queued). */
async function runCheckpoints() {
  const { sql } = server.database;
  const key = `checkpoints:${randomUUID()}`;
  await sql`select graphile_worker.add_job('audit_checkpoints', '{}'::json, job_key => ${key})`;
  const done = async () => (await sql`select 1 from graphile_worker.jobs where key = ${key}`).length === 0;
  for (let i = 0; i < 300 && !(await done()); i += 1) await new Promise((r) => setTimeout(r, 50));
  expect(await done()).toBe(true);
}

async function account() {
  const { org, owner } = await factories.team(server.resource);
  return { orgId: org.id, client: owner };
}

/** Some changes through the API. */
async function busy(client: HttpClient, n: number) {
  for (let i = 0; i < n; i += 1) {
    const item = (await client.post<{ id: string }>('/api/items', { title: `change ${i}` })).body;
    await client.post(`/api/items/${item.id}/ack`);
  }
}

const verify = async (client: HttpClient) => (await client.get<AuditVerdict>('/api/audit/verify')).body;

/** The chain as an auditor receives it: GET /api/audit/export's entries. */
async function exported(client: HttpClient) {
  const lines = (await client.get<string>('/api/audit/export')).text.split('\n').filter(Boolean);
  return lines.map((l) => JSON.parse(l) as ChainedEntry & { type: string }).filter((l) => l.type === 'entry');
}

type Checkpoint = { seq: number; hash: string; checkpoint: string };
const checkpointsIn = (entries: ChainedEntry[]) =>
  entries.filter((e) => e.action === 'audit.checkpoint').map((e) => e.data as Checkpoint);

/** A checkpoint's claims, verified with jose against the organization's published keys. */
async function claimsOf(checkpoint: string, orgId: string) {
  const jwks = (await server.resource.get<JSONWebKeySet>(`/.well-known/jwks.json?org_id=${orgId}`)).body;
  const { payload } = await jwtVerify(checkpoint, createLocalJWKSet(jwks), {
    typ: 'beckon-audit-checkpoint+jwt',
    algorithms: ['EdDSA'],
  });
  return payload as JWTPayload & { seq: number; hash: string };
}

const BIN = fileURLToPath(new URL('../../../sdk/bin/beckon.mjs', import.meta.url));
const beckonAuditVerify = (token: string) =>
  finishedRun(
    spawn(process.execPath, [BIN, 'audit', 'verify'], {
      env: { ...process.env, BECKON_URL: server.resource.baseUrl, BECKON_TOKEN: token },
    }),
  );

describe('periodic audit checkpoints', () => {
  it('sign each chain that advanced since its last checkpoint, and no other', async () => {
    const a = await account();
    const b = await account();
    await busy(a.client, 2);
    await busy(b.client, 1);
    await runCheckpoints();

    for (const { orgId, client } of [a, b]) {
      const entries = await exported(client);
      const head = entries.at(-1);
      expect(head).toMatchObject({ action: 'audit.checkpoint', actor_type: 'system', actor_id: null });
      const [kept] = checkpointsIn(entries);
      const pinned = entries.find((e) => e.seq === kept?.seq);
      expect(kept).toEqual({ seq: (head?.seq ?? 0) - 1, hash: pinned?.hash, checkpoint: expect.any(String) });
      expect(await claimsOf(kept?.checkpoint ?? '', orgId)).toMatchObject({
        org_id: orgId,
        seq: kept?.seq,
        hash: pinned?.hash,
        anchor_seq: 0,
      });
      expect(await verify(client)).toMatchObject({ valid: true, head: { seq: head?.seq, hash: head?.hash } });
    }

    // Only a's chain moves on: a second checkpoint for a, none for b.
    const bHead = (await verify(b.client)).head;
    await busy(a.client, 1);
    await runCheckpoints();
    await runCheckpoints();
    const aEntries = await exported(a.client);
    expect(checkpointsIn(aEntries).map((c) => c.seq)).toEqual([
      checkpointsIn(aEntries)[0]?.seq,
      (aEntries.at(-1)?.seq ?? 0) - 1,
    ]);
    expect(checkpointsIn(await exported(b.client))).toHaveLength(1);
    expect((await verify(b.client)).head).toEqual(bHead);
    expect(await verify(a.client)).toMatchObject({ valid: true, broken: null });
  });

  it('verify with `beckon audit verify` like any entry of the chain', async () => {
    const owner = await factories.account('owner');
    const client = server.resource.as(owner.token);
    await busy(client, 1);
    await runCheckpoints();
    expect(checkpointsIn(await exported(client))).toHaveLength(1);
    const head = (await verify(client)).head;
    const run = await beckonAuditVerify(owner.token);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(
      `audit chain valid: ${head?.seq} entries (seq 1..${head?.seq}), head ${head?.hash}\n`,
    );
  });
});

/** What someone with write access to the database does: change entry `seq`, then relink all after it. */
async function rewriteFrom(orgId: string, seq: number) {
  const { sql } = server.database;
  const rows = await sql<(Omit<ChainedEntry, 'created_at'> & { created_at: Date })[]>`
    select seq::float8 as seq, id, org_id, item_id, action, actor_type, actor_id, data, created_at,
           prev_hash, hash
      from audit_entries where org_id = ${orgId} and seq >= ${seq - 1} order by seq`;
  let prev = rows[0]?.hash ?? '';
  for (const row of rows.slice(1)) {
    const entry = { ...row, created_at: row.created_at.toISOString() };
    if (row.seq === seq) entry.actor_type = 'system';
    const hash = await linkHash(prev, await contentDigest(entry));
    await sql`update audit_entries set actor_type = ${entry.actor_type}, prev_hash = ${prev}, hash = ${hash}
               where org_id = ${orgId} and seq = ${row.seq}`;
    await sql`update audit_heads set prev_hash = ${prev}, hash = ${hash}
               where org_id = ${orgId} and seq = ${row.seq}`;
    prev = hash;
  }
}

describe('tampering after a checkpoint', () => {
  it('a chain rewritten wholesale verifies, but no longer reaches the checkpoint’s hash', async () => {
    const { orgId, client } = await account();
    await busy(client, 2);
    await runCheckpoints();
    const [kept] = checkpointsIn(await exported(client));
    const claims = await claimsOf(kept?.checkpoint ?? '', orgId);

    await rewriteFrom(orgId, 2);
    expect(await verify(client)).toMatchObject({ valid: true });
    const now = (await exported(client)).find((e) => e.seq === claims.seq);
    expect(now?.hash).not.toBe(claims.hash);
  });

  it('a changed entry breaks the chain, and the job signs nothing for it', async () => {
    const broken = await account();
    const intact = await account();
    await busy(broken.client, 1);
    await busy(intact.client, 1);
    await server.database.sql`update audit_entries set actor_id = null
                               where org_id = ${broken.orgId} and seq = 2`;
    await runCheckpoints();
    expect(await verify(broken.client)).toMatchObject({ valid: false, broken: { seq: 2, reason: 'hash' } });
    expect(checkpointsIn(await exported(broken.client))).toEqual([]);
    expect(checkpointsIn(await exported(intact.client))).toHaveLength(1);
  });
});

describe('the schedule', () => {
  it('is a crontab line every AUDIT_CHECKPOINT_MINUTES, none when 0 or off', () => {
    const line = (minutes: string) =>
      crontab(loadEnv({ NODE_ENV: 'test', AUDIT_CHECKPOINT_MINUTES: minutes }))
        .split('\n')
        .find((l) => l.includes('audit_checkpoints'));
    expect(line('15')).toBe('*/15 * * * * audit_checkpoints ?queue=audit_checkpoints');
    expect(line('60')).toBe('7 * * * * audit_checkpoints ?queue=audit_checkpoints');
    expect(line('360')).toBe('7 */6 * * * audit_checkpoints ?queue=audit_checkpoints');
    expect(crontab(loadEnv({ NODE_ENV: 'test' }))).toContain('7 * * * * audit_checkpoints');
    expect(line('0')).toBeUndefined();
    expect(line('off')).toBeUndefined();
    for (const wrong of ['7', '90', '-5', 'hourly']) {
      expect(() => loadEnv({ NODE_ENV: 'test', AUDIT_CHECKPOINT_MINUTES: wrong })).toThrow(
        /AUDIT_CHECKPOINT_MINUTES/,
      );
    }
  });

  it('is registered by a worker that has one, and by none without', async () => {
    const known = async () =>
      (
        await server.database.sql<{ identifier: string }[]>`
          select identifier from graphile_worker._private_known_crontabs`
      ).map((r) => r.identifier);
    expect(await known()).not.toContain('audit_checkpoints');
    const second = await startTestServer({
      database: server.database,
      worker: true,
      env: { AUDIT_CHECKPOINT_MINUTES: '30' },
    });
    try {
      for (let i = 0; i < 200 && !(await known()).includes('audit_checkpoints'); i += 1) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await known()).toContain('audit_checkpoints');
    } finally {
      await second.close();
    }
  });
});
