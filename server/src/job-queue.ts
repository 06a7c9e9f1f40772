import type { Queryable } from '@beckon/db';
import { currentRequestId } from './request-context';

/**
 * How often graphile-worker runs a job whose task threw or whose worker died mid-run (with its
 * own backoff, about 3.5 h in all). Deliveries schedule their own retries; these attempts only
 * cover a crash or a database error, and tasks are safe to run again.
 */
export const JOB_MAX_ATTEMPTS = 10;

export type JobOptions = { runAt?: Date; key?: string };

/**
 * The payload as queued: with the `request_id` of the request (or job) it is enqueued for, which
 * the worker takes off again and logs the job's lines with (jobs/worker.ts).
 */
export const withRequestId = (payload: object) => {
  const requestId = currentRequestId();
  return requestId ? { ...payload, request_id: requestId } : payload;
};

/** A `graphile_worker.add_job(...)` call, to embed in a statement of the caller's. */
export const addJob = (sql: Queryable, task: string, payload: object, options: JobOptions = {}) =>
  sql`graphile_worker.add_job(
    identifier => ${task}, payload => ${sql.json(withRequestId(payload) as never)}::json, max_attempts => ${JOB_MAX_ATTEMPTS},
    run_at => ${options.runAt ?? null}::timestamptz, job_key => ${options.key ?? null})`;

export async function enqueueJob(sql: Queryable, task: string, payload: object, options: JobOptions = {}) {
  await sql`select ${addJob(sql, task, payload, options)}`;
}
