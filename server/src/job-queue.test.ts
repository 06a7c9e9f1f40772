import type { Queryable } from '@beckon/db';
import { describe, expect, it } from 'vitest';
import type { Deps } from './deps';
import { loadEnv } from './env';
import { addJob, addJobFor } from './job-queue';
import { JOB_TASKS } from './job-tasks';
import { taskList } from './jobs/worker';

/** Never called: the compiler checks these lines (a misspelling must not compile). */
export function misspellingsDoNotCompile(sql: Queryable) {
  // @ts-expect-error: no such task
  addJob(sql, 'deliver_calback', { item_id: 'x' });
  // @ts-expect-error: the payload lacks `attempt`
  addJob(sql, 'deliver_push', { entry_id: '0190f0f0-0000-7000-8000-000000000000' });
  // @ts-expect-error: `entry` is not a key of deliver_push's payload
  addJobFor(sql, 'deliver_push', { entry: sql`e.id`, attempt: sql`1` });
  // @ts-expect-error: `user_id` is missing
  addJobFor(sql, 'send_email_digest', { org_id: sql`o.id` });
}

describe('the typed queue', () => {
  it('runs exactly the tasks of the table', () => {
    expect(Object.keys(taskList({ env: loadEnv({ NODE_ENV: 'test' }) } as Deps)).sort()).toEqual(
      Object.keys(JOB_TASKS).sort(),
    );
  });

  it('parses each payload with its entry', () => {
    const push = {
      entry_id: '0190f0f0-0000-7000-8000-000000000000',
      org_id: '0190f0f0-0000-7000-8000-000000000001',
      attempt: 1,
    };
    expect(JOB_TASKS.deliver_push.parse(push)).toEqual(push);
    expect(JOB_TASKS.deliver_push.safeParse({ ...push, attempt: 0 }).success).toBe(false);
  });
});
