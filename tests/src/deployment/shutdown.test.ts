import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  type OwnPostgres,
  openClient,
  type ResourceProcess,
  spawnResource,
  startOwnPostgres,
} from '../faults/own-processes';
import { Factories, HttpClient, mcpRequest, startReceiver } from '../harness';

/**
 * SIGTERM of a resource process while clients hold what never ends by itself: an agent's event
 * stream, a dashboard WebSocket, an MCP tasks/result waiting for an answer, and a callback whose
 * receiver does not answer. The process tells each client to reconnect, hands the job back and
 * exits by itself (0) within SHUTDOWN_TIMEOUT_MS; reaching the deadline would exit 1.
 */
const FORM = { id: 'go', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?', required: true }] };

let pg: OwnPostgres;
let client: ReturnType<typeof openClient>;
let resource: ResourceProcess | undefined;

beforeAll(async () => {
  pg = await startOwnPostgres();
  client = openClient(pg.url);
}, 120_000);

afterAll(async () => {
  if (resource?.child.exitCode === null) resource.child.kill('SIGKILL');
  await client?.end({ timeout: 1 });
  await pg?.close();
});

/** The process's open event subscriptions, from its /metrics. */
async function streams(url: string) {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^beckon_streams (\d+)$/m.exec(text)?.[1] ?? -1);
}

/** Reads an SSE response's text as it arrives, until the stream ends. */
function readAll(body: ReadableStream<Uint8Array>) {
  let text = '';
  const done = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  })().catch(() => {});
  return { text: () => text, done };
}

describe('stopping within SHUTDOWN_TIMEOUT_MS', () => {
  it('ends SSE, WebSocket and tasks/result waits with a reconnect signal, hands back the job, exits 0', async () => {
    const account = await new Factories(client.db).account('owner');
    const key = await new Factories(client.db).apiKey(account.org.id, account.user.id);
    const receiver = await startReceiver(undefined, { delayMs: 120_000 });
    try {
      resource = await spawnResource(pg.url, { SHUTDOWN_TIMEOUT_MS: '8000' });
      const { url } = resource;
      const api = new HttpClient(url, account.token);

      // A callback in flight to a receiver that does not answer.
      const called = await api.post<{ id: string }>('/api/items', {
        title: 'Callback',
        callback_url: `${receiver.url}/cb`,
      });
      await api.post(`/api/items/${called.body.id}/dismiss`);
      expect(await eventually(() => receiver.received.length === 1, 60_000)).toBe(true);

      const sse = await fetch(`${url}/mcp/sse`, { headers: { authorization: `Bearer ${key.token}` } });
      expect(sse.status).toBe(200);
      const stream = readAll(sse.body!);

      const socket = new WebSocket(`${url.replace('http', 'ws')}/api/ws`);
      const closed = new Promise<{ code: number; reason: string }>((resolve) =>
        socket.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason })),
      );
      const ready = new Promise((resolve) => socket.addEventListener('message', resolve, { once: true }));
      socket.addEventListener('open', () =>
        socket.send(JSON.stringify({ type: 'auth', token: account.token })),
      );
      await ready;

      const created = await mcpRequest<{ task: { taskId: string } }>(
        url,
        key.token,
        'tools/call',
        { name: 'service.ask', arguments: { title: 'Ship it?', form: FORM }, task: { ttl: 60_000 } },
        '2025-11-25',
      );
      const taskId = created.body.result!.task.taskId;
      const waiting = mcpRequest(url, key.token, 'tasks/result', { taskId }, '2025-11-25');
      // All three hold an event subscription in the process.
      expect(await eventually(async () => (await streams(url)) === 3, 30_000)).toBe(true);

      resource.child.kill('SIGTERM');
      expect(await resource.exited).toBe(0);

      await stream.done;
      expect(stream.text()).toContain('event: stream.closing\ndata: {"reason":"server stopping: reconnect');
      expect(await closed).toEqual({ code: 1001, reason: 'server stopping: reconnect' });
      const interrupted = await waiting;
      expect(interrupted.status).toBe(200);
      expect(interrupted.body.error).toMatchObject({ code: -32000 });
      expect(interrupted.body.error?.message).toContain('call tasks/result again');

      // The callback job was handed back: unlocked, to be run again, with no attempt recorded.
      const [job] = await client.sql<{ locked_by: string | null; last_error: string | null }[]>`
        select locked_by, last_error from graphile_worker._private_jobs
         where task_id = (select id from graphile_worker._private_tasks where identifier = 'deliver_callback')`;
      expect(job).toMatchObject({ locked_by: null });
      expect(job?.last_error).toContain('delivery interrupted: the worker is stopping');
      const attempts = await client.sql`select 1 from delivery_attempts where item_id = ${called.body.id}`;
      expect(attempts).toHaveLength(0);
      expect(resource.output()).not.toContain('did not stop within SHUTDOWN_TIMEOUT_MS');
    } finally {
      await receiver.close();
      await resource?.stop();
    }
  }, 120_000);
});
