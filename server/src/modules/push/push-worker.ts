import type { Deps } from '../../deps';
import { mobilePushAdapter, type PushOutcome, webPushAdapter } from './adapters';
import { PUSH_CHANNEL, type PushPayload } from './queue';

/** Attempts before an entry is marked permanently failed; the n-th failure waits 2^n seconds. */
export const MAX_PUSH_ATTEMPTS = 5;
const BATCH = 20;

type Claimed = {
  id: string;
  device_id: string;
  platform: 'mobile' | 'webpush';
  token: string;
  payload: PushPayload;
  attempts: number;
};

/**
 * Delivers the push queue (`push_queue`) through the browser and mobile adapters. Entries are
 * claimed with FOR UPDATE SKIP LOCKED and leased for two minutes in the same statement, so
 * concurrent workers never take the same entry and an entry held by a worker that died is taken
 * again once its lease ends (at least once). A failure is retried after 2^attempts seconds; the
 * fifth, or one no retry can fix, marks the entry permanently failed; a device the push service
 * no longer knows is removed. Woken by item creations (NOTIFY) and by polling.
 */
export async function startPushWorker(deps: Deps): Promise<{ stop: () => Promise<void> }> {
  const { sql, log } = deps;
  const adapters = { webpush: webPushAdapter(deps.env), mobile: mobilePushAdapter(deps.env) };
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;

  const record = async (entry: Claimed, outcome: PushOutcome) => {
    if (outcome.ok) {
      await sql`update push_queue set delivered_at = now(), attempts = attempts + 1, last_error = null
                 where id = ${entry.id}`;
      return;
    }
    if (outcome.gone) {
      // The subscription ended: the device goes, and its entries with it.
      await sql`delete from devices where id = ${entry.device_id}`;
      return;
    }
    const attempts = entry.attempts + 1;
    const final = !outcome.retry || attempts >= MAX_PUSH_ATTEMPTS;
    await sql`update push_queue set attempts = ${attempts}, last_error = ${outcome.error},
                     permanently_failed = ${final},
                     next_attempt_at = now() + make_interval(secs => ${2 ** attempts})
               where id = ${entry.id}`;
  };

  const drain = async () => {
    while (!stopped) {
      const claimed = await sql<Claimed[]>`
        with due as (
          select id from push_queue
           where delivered_at is null and not permanently_failed and next_attempt_at <= now()
           order by next_attempt_at limit ${BATCH}
             for update skip locked)
        update push_queue q set next_attempt_at = now() + interval '2 minutes'
          from due, devices d
         where q.id = due.id and d.id = q.device_id
        returning q.id, q.device_id, d.platform, d.device_token as token, q.payload, q.attempts`;
      if (claimed.length === 0) return;
      await Promise.all(
        claimed.map(async (entry) =>
          record(entry, await adapters[entry.platform](entry.token, entry.payload)),
        ),
      );
    }
  };

  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await drain().catch((error: unknown) => log.error({ err: error }, 'push delivery failed'));
      } while (again && !stopped);
      running = null;
    })();
  };

  const listening = await sql.listen(PUSH_CHANNEL, wake);
  const timer = setInterval(wake, deps.env.WORKER_POLL_INTERVAL_MS);
  wake();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await listening.unlisten();
      await running;
    },
  };
}
