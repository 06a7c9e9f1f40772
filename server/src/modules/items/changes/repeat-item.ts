import { assigneeKey } from '@beckon/contracts/assignment/assignment.contract';
import type { Queryable } from '@beckon/db';
import { SYSTEM } from '../../../auth/identity';
import { OrgFacts } from '../../../caches/org-facts';
import type { Deps } from '../../../deps';
import { addJob } from '../../../job-queue';
import { JOB_TASKS } from '../../../job-tasks';
import { withJobOrg } from '../../../jobs/job-org';
import { type Part, part } from '../../../statement-parts';
import { onCallAuditData, withOnCall } from '../../assignment/assignees';
import { RETURNING, SELECT } from '../rows/item-queries';
import type { ItemRow } from '../rows/item-view';
import { delegationAuditData, notificationParts, peopleFor } from './notify-people';
import { recordChange } from './record-change';

const jobKey = (itemId: string) => `repeat_item:${itemId}`;

/** Whether an item is still to be notified again: it asks for it, is open, and nobody acknowledged it. */
const repeats = (row: ItemRow) => row.repeat_every_minutes !== null && row.status === 'open' && !row.acked_at;

/**
 * The job of an item's next notification again, as a part of the change's statement
 * (record-change.ts): one per item (job key), `every_minutes` after `from`, carrying how many have run (null: none due).
 */
export function repeatJob(sql: Queryable, row: ItemRow, from: Date): Part | null {
  if (!repeats(row) || row.repeat_every_minutes === null) return null;
  const runAt = new Date(from.getTime() + row.repeat_every_minutes * 60_000);
  const job = addJob(
    sql,
    'repeat_item',
    { item_id: row.id, org_id: row.org_id, round: row.repeat_count },
    { runAt, key: jobKey(row.id) },
  );
  return part('repeat_job', sql`select ${job}`);
}

/**
 * Schedules the next notification of an item that asks for them (again: after a restore or an
 * unarchive), or removes the pending one of an item acknowledged or no longer open.
 */
export function repeatSchedule(sql: Queryable, row: ItemRow, now: Date): Part | null {
  if (row.repeat_every_minutes === null) return null;
  return (
    repeatJob(sql, row, now) ?? part('repeat_job', sql`select graphile_worker.remove_job(${jobKey(row.id)})`)
  );
}

/**
 * The `repeat_item` task: notifies whoever the item waits for again (its claimer, else its
 * assignees, else everyone), on every notification channel, in one transaction with the count
 * written on the item, the audit entry, the event and the next job. It does nothing unless the
 * item still repeats and this is the next round, so a job run twice notifies once.
 */
export async function repeatItem(deps: Deps, payload: unknown): Promise<void> {
  const payloadWithOrg = await withJobOrg(deps.sql, 'repeat_item', payload);
  if (!payloadWithOrg) return;
  const job = JOB_TASKS.repeat_item.parse(payloadWithOrg);
  await deps.sql.begin(async (tx) => {
    const [current] = await tx<ItemRow[]>`
      ${SELECT(tx)} where i.org_id = ${job.org_id} and i.id = ${job.item_id} for update of i`;
    if (!current || !repeats(current) || current.repeat_count !== job.round) return;
    // As a reminder: whoever is on call now on the item's schedules joins its assignees.
    const at = deps.clock();
    const { assignees, onCall } = await withOnCall(tx, current.org_id, current.assignees, at);
    const [updated] = await tx<ItemRow[]>`
      update items set repeat_count = repeat_count + 1, assignees = ${tx.json(assignees as never)},
                       assignee_keys = ${assignees.map(assigneeKey)}, updated_at = now()
       where org_id = ${current.org_id} and id = ${current.id} returning ${tx.unsafe(RETURNING)}`;
    const row = { ...(updated as ItemRow), channel_name: current.channel_name };
    const recipients = await peopleFor(tx, row, { after: 'PT1S', action: 'remind' }, at);
    await recordChange(tx, {
      row,
      action: 'item.repeat',
      actor: SYSTEM,
      event: 'item.reminded',
      data: {
        round: row.repeat_count,
        every_minutes: row.repeat_every_minutes,
        recipients: 'only' in recipients ? recipients.only : 'everyone',
        ...onCallAuditData(onCall),
        ...delegationAuditData(recipients),
      },
      webhooks: await OrgFacts.has(deps, 'webhooks', row.org_id),
      notify: await notificationParts(deps, tx, row, recipients, 'reminded'),
      schedule: [repeatJob(tx, row, at)],
    });
  });
}
