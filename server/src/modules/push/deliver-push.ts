import type { Form } from '@beckon/contracts/items/form.contract';
import type { Deps } from '../../deps';
import { addJob } from '../../job-queue';
import { JOB_TASKS } from '../../job-tasks';
import { withJobOrg } from '../../jobs/job-org';
import { inPlaceChoices } from '../../mail/mail-choices';
import { mobilePushAdapter, webPushAdapter } from './adapters';
import type { PushOutcome } from './bounded-request';
import type { PushPayload } from './push-entries';
import { pushAnswerToken } from './push-token';

/** Attempts before an entry is marked permanently failed; the n-th failure waits 2^n seconds. */
export const MAX_PUSH_ATTEMPTS = 5;

type Entry = {
  id: string;
  org_id: string;
  user_id: string;
  item_id: string;
  attempts: number;
  done: boolean;
  device_id: string;
  platform: 'mobile' | 'webpush';
  token: string;
  payload: PushPayload;
  form: Form | null;
  require_reauth: unknown;
  open: boolean;
  deadline_at: Date | null;
};

/**
 * The payload as sent to one person: an open item whose form a notification can answer (and
 * that needs no fresh verification) gets its choices as actions and a token signed for that person (push-token.ts).
 */
async function personalPayload(deps: Deps, entry: Entry): Promise<PushPayload> {
  const payload = { ...entry.payload, url: new URL(entry.payload.url, deps.env.APP_URL).href };
  const choices = entry.open && !payload.closed ? inPlaceChoices(entry) : null;
  if (!choices) return payload;
  return {
    ...payload,
    actions: choices.map((choice, index) => ({ action: `choice-${index}`, title: choice.label })),
    answer: { url: `${deps.env.APP_URL}/api/push/answer`, token: await pushAnswerToken(deps, entry) },
  };
}

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
                 where org_id = ${entry.org_id} and id = ${entry.id}`;
      return;
    }
    if (outcome.gone) {
      await sql`delete from devices where org_id = ${entry.org_id} and id = ${entry.device_id}`;
      return;
    }
    const final = !outcome.retry || attempt >= MAX_PUSH_ATTEMPTS;
    const runAt = new Date(Date.now() + 2 ** attempt * 1000);
    await sql`
      with entry as (
        update push_queue set attempts = ${attempt}, last_error = ${outcome.error},
                              permanently_failed = ${final}, next_attempt_at = ${runAt}
         where org_id = ${entry.org_id} and id = ${entry.id})
      select ${final ? sql`1` : addJob(sql, 'deliver_push', { entry_id: entry.id, org_id: entry.org_id, attempt: attempt + 1 }, { runAt })}`;
  };

  return async (payload: unknown) => {
    const payloadWithOrg = await withJobOrg(sql, 'deliver_push', payload);
    if (!payloadWithOrg) return;
    const job = JOB_TASKS.deliver_push.parse(payloadWithOrg);
    const [entry] = await sql<Entry[]>`
      select q.id, q.org_id, q.user_id, q.item_id, q.attempts,
             (q.delivered_at is not null or q.permanently_failed) as done,
             q.device_id, d.platform, d.device_token as token, q.payload,
             i.form, i.require_reauth, coalesce(i.status = 'open', false) as open, i.deadline_at
        from push_queue q join devices d on d.org_id = q.org_id and d.id = q.device_id
        left join items i on i.id = q.item_id and i.org_id = q.org_id
       where q.org_id = ${job.org_id} and q.id = ${job.entry_id}`;
    if (!entry || entry.done || entry.attempts >= job.attempt) return;
    const sent = await personalPayload(deps, entry);
    await record(entry, job.attempt, await adapters[entry.platform](entry.token, sent));
  };
}
