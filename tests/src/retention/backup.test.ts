import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDb, ensureDatabase } from '@beckon/db';
import { migrateAll } from '@beckon/server/database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, freePort, startTestServer, type TestDatabase } from '../harness';
import { type Cluster, startCluster, tool } from './postgres-tools';

let cluster: Cluster;
let dumpDir: string;

beforeAll(async () => {
  cluster = await startCluster(await freePort());
  dumpDir = await mkdtemp(path.join(tmpdir(), 'beckon-dump-'));
});
afterAll(async () => {
  await cluster?.stop();
  if (dumpDir) await rm(dumpDir, { recursive: true, force: true });
});

/** A database of the cluster as the test server takes one (left in place when the server closes). */
async function database(name: string): Promise<TestDatabase> {
  const url = cluster.url(name);
  const { sql, db, end } = createDb(url, { max: 5, applicationName: 'beckon-test' });
  return { url, sql, db, drop: () => end({ timeout: 5 }) };
}

describe('a backup with pg_dump', () => {
  it('restores with pg_restore into a new database that the service reads as it was', async () => {
    await ensureDatabase(cluster.url('postgres'), 'beckon');
    await migrateAll(cluster.url('beckon'));
    const source = await database('beckon');
    const server = await startTestServer({ database: source });
    const account = await new Factories(source.db).account('owner');
    const owner = server.resource.as(account.token);
    const titles: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const item = (
        await owner.post<{ id: string; title: string }>('/api/items', { title: `backed up ${i}` })
      ).body;
      await owner.post(`/api/items/${item.id}/comments`, { body: `comment ${i}` });
      titles.push(item.title);
    }
    const before = (await owner.get<{ head: { seq: number } }>('/api/audit/verify')).body;
    await server.close();
    await source.drop();

    // The custom format: compressed, restorable table by table, in parallel with pg_restore -j.
    const file = path.join(dumpDir, 'beckon.dump');
    await tool(cluster, 'pg_dump', ['--format=custom', '--file', file, cluster.url('beckon')]);
    expect((await stat(file)).size).toBeGreaterThan(0);
    await ensureDatabase(cluster.url('postgres'), 'beckon_restored');
    await tool(cluster, 'pg_restore', [
      '--no-owner',
      '--exit-on-error',
      '--dbname',
      cluster.url('beckon_restored'),
      file,
    ]);

    const restored = await database('beckon_restored');
    const again = await startTestServer({ database: restored, worker: true });
    try {
      const api = again.resource.as(account.token);
      const list = await api.get<{ items: { title: string }[] }>('/api/items');
      expect(list.status).toBe(200);
      expect(list.body.items.map((i) => i.title).sort()).toEqual(titles);
      expect(await restored.sql`select 1 from comments`).toHaveLength(3);
      // The audit chain came along whole, and the restored service keeps writing it.
      expect((await api.get('/api/audit/verify')).body).toMatchObject({ valid: true, head: before.head });
      expect((await api.post('/api/items', { title: 'after the restore' })).status).toBe(201);
      expect((await api.get<{ valid: boolean }>('/api/audit/verify')).body.valid).toBe(true);
    } finally {
      await again.close();
      await restored.drop();
    }
  }, 180_000);
});
