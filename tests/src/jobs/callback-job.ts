import { randomUUID } from 'node:crypto';
import { enqueueJob } from '@beckon/server/job-queue';
import { Factories, type TestServer } from '../harness';

/**
 * A deliver_callback job for a new item, to `url`/cb, enqueued as the application enqueues it;
 * `id()` is its row in the queue and `pending()` whether it is still there.
 */
export async function callbackJob(server: TestServer, url: string) {
  const sql = server.database.sql;
  const account = await new Factories(server.database.db).account('owner');
  const item = (await server.resource.as(account.token).post<{ id: string }>('/api/items', { title: 'x' }))
    .body;
  const job = {
    delivery_id: randomUUID(),
    org_id: account.org.id,
    item_id: item.id,
    event: 'item.answered' as const,
    url: `${url}/cb`,
    body: '{"status":"answered"}',
    attempt: 1,
  };
  const key = `test:${job.delivery_id}`;
  await enqueueJob(sql, 'deliver_callback', job, { key });
  const rows = () => sql<{ id: string }[]>`select id from graphile_worker._private_jobs where key = ${key}`;
  return {
    job,
    key,
    id: async () => (await rows())[0]?.id,
    pending: async () => (await rows()).length,
  };
}
