import { SLOW_HOST_ERROR } from '@beckon/server/delivery/slow-hosts';
import { startWorker } from '@beckon/server/jobs/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, startTestServer, type TestServer } from '../harness';
import { callbackJob } from './callback-job';

let server: TestServer;

// Four deliveries at a time, each waiting half a second at most; retries far beyond the test.
beforeAll(async () => {
  server = await startTestServer({
    env: { WORKER_CONCURRENCY: '4', DELIVERY_TIMEOUT_MS: '500', DELIVERY_RETRY_BASE_MS: '600000' },
  });
});
afterAll(() => server?.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a receiver that hangs', () => {
  it('gets two deliveries at a time after a timeout; the rest fail at once, and other receivers get theirs', async () => {
    const hung = await startReceiver(undefined, { delayMs: 30_000 });
    const healthy = await startReceiver();
    // In turn: the hung receiver's deliveries are queued first.
    const queue = async (url: string, count: number) => {
      const jobs: Awaited<ReturnType<typeof callbackJob>>[] = [];
      for (let i = 0; i < count; i++) jobs.push(await callbackJob(server, url));
      return jobs;
    };
    const stuck = await queue(hung.url, 10);
    const fine = await queue(healthy.url, 4);
    const worker = await startWorker(server.deps, server.database.url);
    try {
      const pending = async () =>
        (await Promise.all([...stuck, ...fine].map((job) => job.pending()))).reduce((a, b) => a + b, 0);
      for (let i = 0; i < 200 && (await pending()) > 0; i++) await sleep(50);
      expect(await pending()).toBe(0);
      expect(healthy.received).toHaveLength(4);

      const attempts = await server.database.sql<{ error: string | null }[]>`
        select error from delivery_attempts
         where delivery_id = any(${stuck.map((job) => job.job.delivery_id)}::uuid[])`;
      const sent = attempts.filter((a) => a.error === 'timeout').length;
      const notSent = attempts.filter((a) => a.error === SLOW_HOST_ERROR).length;
      // The first four went out before any had timed out; after that, two at a time.
      expect(sent + notSent).toBe(10);
      expect(hung.received).toHaveLength(sent);
      expect(notSent).toBeGreaterThan(0);
      expect(server.deps.slowHosts.isSlow(new URL(hung.url).host)).toBe(true);
      // Each is retried on the delivery's schedule, as any failed attempt.
      const [retries] = await server.database.sql<{ n: number }[]>`
        select count(*)::int as n from graphile_worker._private_jobs
         where payload->>'attempt' = '2'
           and payload->>'delivery_id' = any(${stuck.map((job) => job.job.delivery_id)})`;
      expect(retries?.n).toBe(10);
    } finally {
      await worker.stop();
      await hung.close();
      await healthy.close();
    }
  });
});
