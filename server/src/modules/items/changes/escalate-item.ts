import { assigneeKey } from '@beckon/contracts/assignment/assignment.contract';
import type { Queryable } from '@beckon/db';
import { SYSTEM } from '../../../auth/identity';
import { OrgFacts } from '../../../caches/org-facts';
import type { Deps } from '../../../deps';
import { addJob } from '../../../job-queue';
import { JOB_TASKS } from '../../../job-tasks';
import { withJobOrg } from '../../../jobs/job-org';
import { type Part, part } from '../../../statement-parts';
import { onCallAuditData, withAssignees, withOnCall } from '../../assignment/assignees';
import { nextStep } from '../../assignment/escalation-due';
import { RETURNING, SELECT } from '../rows/item-queries';
import type { ItemRow } from '../rows/item-view';
import { delegationAuditData, notificationParts, peopleFor } from './notify-people';
import { recordChange } from './record-change';

const jobKey = (itemId: string) => `escalate_item:${itemId}`;

/**
 * The job of an item's next step, as a part of the change's statement (record-change.ts): one per
 * item (job key), carrying the index of the step it runs, due `after` the item's creation.
 */
export function escalationJob(sql: Queryable, row: ItemRow): Part | null {
  const next = nextStep(row);
  if (!next) return null;
  const job = addJob(
    sql,
    'escalate_item',
    { item_id: row.id, org_id: row.org_id, step: row.escalation_step },
    { runAt: next.at, key: jobKey(row.id) },
  );
  return part('escalation_job', sql`select ${job}`);
}

/**
 * Schedules the next step of an open item (again: after a restore or an unarchive, at once when
 * it is overdue) or removes the pending one of an item that left `open`.
 */
export function escalationSchedule(sql: Queryable, row: ItemRow): Part | null {
  if (row.escalation.length === 0) return null;
  return (
    escalationJob(sql, row) ??
    part('escalation_job', sql`select graphile_worker.remove_job(${jobKey(row.id)})`)
  );
}

/**
 * The `escalate_item` task: runs step `step` of an item's policy, in one transaction with
 * everything it causes: the step index written on the item, the audit entry, the stream event,
 * the webhook jobs, the pushes and the job of the next step. It does nothing unless the item is
 * still open and this step is the next one, so a job run again (its worker died after the
 * commit) or a stale one repeats nothing, and a step whose transaction did not commit runs again.
 */
export async function escalateItem(deps: Deps, payload: unknown): Promise<void> {
  const payloadWithOrg = await withJobOrg(deps.sql, 'escalate_item', payload);
  if (!payloadWithOrg) return;
  const job = JOB_TASKS.escalate_item.parse(payloadWithOrg);
  await deps.sql.begin(async (tx) => {
    const [current] = await tx<ItemRow[]>`
      ${SELECT(tx)} where i.org_id = ${job.org_id} and i.id = ${job.item_id} for update of i`;
    if (current?.status !== 'open' || current.escalation_step !== job.step) return;
    const step = current.escalation[job.step];
    if (!step) return;
    // Schedules are resolved again at each step: a reminder reaches whoever is on call now, an
    // escalation the people on call on the schedules it names.
    const at = deps.clock();
    const target = step.action === 'escalate' ? step.to : current.assignees;
    const resolved = await withOnCall(tx, current.org_id, target, at);
    const assignees = withAssignees(current.assignees, resolved.assignees);
    const [updated] = await tx<ItemRow[]>`
      update items set escalation_step = ${job.step + 1}, assignees = ${tx.json(assignees as never)},
                       assignee_keys = ${assignees.map(assigneeKey)}, updated_at = now()
       where org_id = ${current.org_id} and id = ${current.id} returning ${tx.unsafe(RETURNING)}`;
    const row = { ...(updated as ItemRow), channel_name: current.channel_name };
    const reminded = step.action === 'remind';
    const recipients = await peopleFor(
      tx,
      row,
      step.action === 'escalate' ? { ...step, to: resolved.assignees } : step,
      at,
    );
    await recordChange(tx, {
      row,
      action: reminded ? 'item.remind' : 'item.escalate',
      actor: SYSTEM,
      event: reminded ? 'item.reminded' : 'item.escalated',
      data: {
        step: job.step,
        ...step,
        recipients: 'only' in recipients ? recipients.only : 'everyone',
        ...onCallAuditData(resolved.onCall),
        ...delegationAuditData(recipients),
      },
      webhooks: await OrgFacts.has(deps, 'webhooks', row.org_id),
      notify: await notificationParts(deps, tx, row, recipients, reminded ? 'reminded' : 'escalated'),
      schedule: [escalationJob(tx, row)],
    });
  });
}
