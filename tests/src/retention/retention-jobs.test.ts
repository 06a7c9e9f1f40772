import { manualClock } from '@beckon/server/clock';
import { enqueueJob } from '@beckon/server/job-queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';

const DAY = 24 * 3600_000;
const clock = manualClock();
let server: TestServer;
let factories: Factories;

beforeAll(async () => {
  server = await startTestServer({ clock, worker: true, env: { RETENTION_BATCH_SIZE: '2' } });
  factories = new Factories(server.database.db);
});
afterAll(() => server?.close());

/** Polls `check` until it holds (the worker runs jobs on its own time). */
async function eventually(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 300; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`never: ${what}`);
}

describe('the retention jobs on the queue', () => {
  it('apply_retention runs as the worker’s task, with the service clock', async () => {
    const { owner, org } = await factories.team(server.resource);
    for (let i = 0; i < 5; i += 1) {
      const item = (await owner.post<{ id: string }>('/api/items', { title: `item ${i}` })).body;
      await owner.post(`/api/items/${item.id}/comments`, { body: `comment ${i}` });
    }
    await owner.put('/api/admin/retention', { comments_days: 3 });
    clock.advance(4 * DAY);
    const { sql } = server.database;
    await enqueueJob(sql, 'apply_retention', {});
    await eventually(
      async () => (await sql`select 1 from comments where org_id = ${org.id}`).length === 0,
      'the comments removed',
    );
    await eventually(
      async () =>
        (await sql`select 1 from audit_entries where org_id = ${org.id} and action = 'retention.apply'`)
          .length === 1,
      'the run recorded',
    );
    const [entry] = await sql<{ data: unknown }[]>`
      select data from audit_entries where org_id = ${org.id} and action = 'retention.apply'`;
    expect(entry?.data).toEqual({ removed: { comments: 5 } });
    expect((await owner.get<{ valid: boolean }>('/api/audit/verify')).body.valid).toBe(true);
  });

  it('delete_organization removes a deleted organization, enqueued by the request', async () => {
    const { owner, org } = await factories.team(server.resource);
    for (let i = 0; i < 5; i += 1) await owner.post('/api/items', { title: `item ${i}` });
    expect((await owner.post('/api/admin/org/delete', { confirm: org.slug })).status).toBe(202);
    const { sql } = server.database;
    await eventually(
      async () => (await sql`select 1 from organizations where id = ${org.id}`).length === 0,
      'the organization removed',
    );
    expect(await sql`select 1 from items where org_id = ${org.id}`).toHaveLength(0);
  });
});
