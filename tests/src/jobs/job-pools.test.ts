import { startWorker } from '@beckon/server/jobs/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startReceiver, startTestServer, type TestServer } from '../harness';
import { callbackJob } from './callback-job';

let server: TestServer;

// Two deliveries at a time: two receivers that hang fill every delivery slot.
beforeAll(async () => {
  server = await startTestServer({ env: { WORKER_CONCURRENCY: '2' } });
});
afterAll(() => server?.close());

const FORM = { id: 'go', fields: [{ id: 'ok', type: 'yesno', label: 'Go?', required: true }] };

describe('deliveries whose receivers hang', () => {
  it('hold back no deadline: the expiry runs while every delivery slot waits', async () => {
    const receiver = await startReceiver(undefined, { delayMs: 8000 });
    const worker = await startWorker(server.deps, server.database.url);
    try {
      const deliveries = await Promise.all([1, 2, 3].map(() => callbackJob(server, receiver.url)));
      await receiver.waitFor(2);
      const owner = await new Factories(server.database.db).account('owner');
      const person = server.resource.as(owner.token);
      const deadline = new Date(Date.now() + 1000).toISOString();
      const question = await person.post<{ id: string }>('/api/items', {
        title: 'Go?',
        form: FORM,
        deadline_at: deadline,
      });
      expect(question.status).toBe(201);
      let status = 'open';
      for (let i = 0; i < 120 && status === 'open'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = (await person.get<{ status: string }>(`/api/items/${question.body.id}`)).body.status;
      }
      expect(status).toBe('expired');
      // Meanwhile the deliveries still wait: two on their receiver, the third for a slot.
      expect(receiver.received).toHaveLength(2);
      const pending = await Promise.all(deliveries.map((d) => d.pending()));
      expect(pending).toEqual([1, 1, 1]);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});
