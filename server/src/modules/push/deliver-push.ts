import type { Deps } from '../../deps';
import { addJob } from '../../job-queue';
import { JOB_TASKS } from '../../job-tasks';
import { mobilePushAdapter, webPushAdapter } from './adapters';
import type { PushOutcome } from './bounded-request';
import type { PushPayload } from './push-entries';

/** Attempts before an entry is marked permanently failed; the n-th failure waits 2^n seconds. */
export const MAX_PUSH_ATTEMPTS = 5;

type Entry = {
  id: string;
  attempts: number;
  done: boolean;
  device_id: string;
  platform: 'mobile' | 'webpush';
  token: string;
  payload: PushPayload;
};

/**
 * The `deliver_push` task: one attempt of one push entry through the browser or mobile adapter.
 * The queue hands a job to one worker at a time, so concurrent workers never take the same
 * entry, and a job whose worker died is run again (at least once). A failure is recorded with
 * the next attempt's job, due in 2^attempts seconds, in one statement; the fifth, or one no
 * retry can fix, marks the entry permanently failed; a device the push service no longer knows
 * is removed (its entries with it). A job run again after its attempt was recorded does nothing.
 */
export function deliverPushTask(deps: Deps) {
  const adapters = { webpush: webPushAdapter(deps.env), mobile: mobilePushAdapter(deps.env) };
  const { sql } = deps;

  const record = async (entry: Entry, attempt: number, outcome: PushOutcome) => {
    if (outcome.ok) {
      await sql`update push_queue set delivered_at = now(), attempts = ${attempt}, last_error = null
                 where id = ${entry.id}`;
      return;
    }
    if (outcome.gone) {
      await sql`delete from devices where id = ${entry.device_id}`;
      return;
    }
    const final = !outcome.retry || attempt >= MAX_PUSH_ATTEMPTS;
    const runAt = new Date(Date.now() + 2 ** attempt * 1000);
    await sql`
      with entry as (
        update push_queue set attempts = ${attempt}, last_error = ${outcome.error},
                              permanently_failed = ${final}, next_attempt_at = ${runAt}
         where id = ${entry.id})
      select ${final ? sql`1` : addJob(sql, 'deliver_push', { entry_id: entry.id, attempt: attempt + 1 }, { runAt })}`;
  };

  return async (payload: unknown) => {
    const job = JOB_TASKS.deliver_push.parse(payload);
    const [entry] = await sql<Entry[]>`
      select q.id, q.attempts, (q.delivered_at is not null or q.permanently_failed) as done,
             q.device_id, d.platform, d.device_token as token, q.payload
        from push_queue q join devices d on d.id = q.device_id
       where q.id = ${job.entry_id}`;
    if (!entry || entry.done || entry.attempts >= job.attempt) return;
    await record(entry, job.attempt, await adapters[entry.platform](entry.token, entry.payload));
  };
}
