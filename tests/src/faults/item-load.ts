import { isDeepStrictEqual } from 'node:util';
import type { Sql } from '@beckon/db';
import type { HttpClient, Received } from '../harness';
import { eventually } from './own-processes';

/** One API call of a load: when it started, how long it took, what it answered. */
export type Call = { path: string; started: number; ms: number; status: number; retryAfter: string | null };

/**
 * The load the fault tests break the database under: each client creates an item with a callback
 * URL, then dismisses it (which queues a callback), over and over until `stop()`. Only what the
 * API acknowledged (201, 200) is recorded as created or dismissed; a refused call is followed by
 * a short pause, as a client honouring Retry-After would.
 */
export function startItemLoad(api: HttpClient, callbackUrl: string, clients: number) {
  const calls: Call[] = [];
  const created: string[] = [];
  const dismissed: string[] = [];
  const timed = async <T>(
    path: string,
    request: () => Promise<{ status: number; headers: Headers; body: T }>,
  ) => {
    const started = Date.now();
    const response = await request();
    calls.push({
      path,
      started,
      ms: Date.now() - started,
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
    });
    return response;
  };
  let running = true;
  const loops = Array.from({ length: clients }, async (_, n) => {
    for (let i = 0; running; i++) {
      const item = await timed('POST /api/items', () =>
        api.post<{ id: string }>('/api/items', { title: `load ${n}.${i}`, callback_url: callbackUrl }),
      );
      if (item.status === 201) {
        created.push(item.body.id);
        const dismiss = await timed('POST /api/items/:id/dismiss', () =>
          api.post(`/api/items/${item.body.id}/dismiss`),
        );
        if (dismiss.status === 200) dismissed.push(item.body.id);
      } else {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });
  return {
    calls,
    created,
    dismissed,
    timed,
    /** The first item creation acknowledged among the calls that started at or after `since`. */
    firstCreatedSince: (since: number) => calls.find((c) => c.started >= since && c.status === 201),
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** The item ids of the callbacks received. */
export const callbackItems = (received: Received[]) =>
  new Set(received.map((r) => (JSON.parse(r.body) as { item_id: string }).item_id));

/** Callbacks received more than once (the same delivery id again). */
export const duplicateDeliveries = (received: Received[]) =>
  received.length - new Set(received.map((r) => r.headers['x-service-delivery'])).size;

/** What a resource process with its worker listens on once settled: one liveness lock per worker pool. */
export const SETTLED_LISTENERS = [
  ['beckon-events-listener', 1],
  ['beckon-identity-listener', 1],
  ['beckon-worker-liveness', 2],
];

/** The listening connections of the processes on this database, by name, with how many each has. */
export const listenerCounts = async (sql: Sql) =>
  (
    await sql<{ application_name: string; n: string }[]>`
      select application_name, count(*) as n from pg_stat_activity
       where application_name in ('beckon-identity-listener', 'beckon-events-listener', 'beckon-worker-liveness')
         and datname = current_database()
       group by 1 order by 1`
  ).map((l) => [l.application_name, Number(l.n)] as const);

/** The listening connections once they settled as SETTLED_LISTENERS (within 15 s), or as they are then. */
export async function settledListeners(sql: Sql) {
  await eventually(async () => isDeepStrictEqual(await listenerCounts(sql), SETTLED_LISTENERS), 15_000);
  return listenerCounts(sql);
}

/** The callback jobs still queued, with who holds them and why they last failed (for a failure's message). */
export const callbackJobs = async (sql: Sql) =>
  JSON.stringify(
    await sql`
      select j.id, j.attempts, j.locked_by, j.locked_at, j.run_at, j.last_error,
             h.seen_at as holder_seen_at
        from graphile_worker.jobs j left join worker_heartbeats h on h.pool_id = j.locked_by
       where j.task_identifier = 'deliver_callback' order by j.id`,
    null,
    1,
  );
