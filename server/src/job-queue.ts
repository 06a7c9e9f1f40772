import type { Queryable } from '@beckon/db';
import type postgres from 'postgres';
import type { TaskName, TaskPayload } from './job-tasks';
import { currentRequestId } from './request-context';
import { activeTraceHeaders } from './tracing/tracing';

/**
 * How often graphile-worker runs a job whose task threw or whose worker died mid-run (with its
 * own backoff, about 3.5 h in all). Deliveries schedule their own retries; these attempts only
 * cover a crash or a database error, and tasks are safe to run again.
 */
export const JOB_MAX_ATTEMPTS = 10;

export type JobOptions = { runAt?: Date; key?: string };

/**
 * The payload as queued: with the `request_id` of the request (or job) it is enqueued for, which
 * the worker takes off again and logs the job's lines with (jobs/worker.ts), and when tracing, the
 * trace context (`traceparent`, `tracestate`) the job's span continues.
 */
export const withRequestId = (payload: object) => {
  const requestId = currentRequestId();
  const trace = activeTraceHeaders();
  return requestId || trace
    ? { ...payload, ...(requestId ? { request_id: requestId } : {}), ...trace }
    : payload;
};

/** A `graphile_worker.add_job(...)` call, to embed in a statement of the caller's. */
export const addJob = <T extends TaskName>(
  sql: Queryable,
  task: T,
  payload: TaskPayload<T>,
  options: JobOptions = {},
) =>
  sql`graphile_worker.add_job(
    identifier => ${task}, payload => ${sql.json(withRequestId(payload as object) as never)}::json, max_attempts => ${JOB_MAX_ATTEMPTS},
    run_at => ${options.runAt ?? null}::timestamptz, job_key => ${options.key ?? null})`;

export async function enqueueJob<T extends TaskName>(
  sql: Queryable,
  task: T,
  payload: TaskPayload<T>,
  options: JobOptions = {},
) {
  await sql`select ${addJob(sql, task, payload, options)}`;
}

type Fragment = postgres.PendingQuery<postgres.Row[]>;
/** One SQL expression per key of a payload (of any one shape, for a task that takes several). */
type SqlPayload<P> = P extends unknown ? { [K in keyof P]-?: Fragment } : never;

const jsonKey = (key: string) => `'${key.replaceAll("'", "''")}'`;

/**
 * The same call with the payload built in SQL (`json_build_object`) from one expression per key,
 * for jobs a statement adds per row it reads (one per webhook, person, entry...). The keys are
 * the task's: a missing or misspelled one does not compile. `runAt` and `key` are expressions too;
 * `keyMode` is graphile-worker's job_key_mode. The payload carries `request_id` and the trace
 * context as withRequestId's.
 */
export function addJobFor<T extends TaskName>(
  sql: Queryable,
  task: T,
  payload: SqlPayload<TaskPayload<T>>,
  options: { runAt?: Fragment; key?: Fragment; keyMode?: 'preserve_run_at' } = {},
) {
  const pairs = Object.entries(payload as Record<string, Fragment>).reduce<Fragment | null>(
    (joined, [key, value]) =>
      joined
        ? sql`${joined}, ${sql.unsafe(jsonKey(key))}, ${value}`
        : sql`${sql.unsafe(jsonKey(key))}, ${value}`,
    null,
  );
  const trace = activeTraceHeaders();
  const traceFields = trace
    ? sql`, 'traceparent', ${trace.traceparent}::text, 'tracestate', ${trace.tracestate ?? null}::text`
    : sql``;
  return sql`graphile_worker.add_job(
    identifier => ${sql.unsafe(jsonKey(task))}, max_attempts => ${JOB_MAX_ATTEMPTS},
    payload => json_build_object(${pairs ?? sql``}, 'request_id', ${currentRequestId() ?? null}::text${traceFields})
    ${options.runAt ? sql`, run_at => ${options.runAt}` : sql``}
    ${options.key ? sql`, job_key => ${options.key}` : sql``}
    ${options.keyMode ? sql`, job_key_mode => ${sql.unsafe(jsonKey(options.keyMode))}` : sql``})`;
}
