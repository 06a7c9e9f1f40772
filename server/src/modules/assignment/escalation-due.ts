import { durationMs, type EscalationStep } from '@beckon/contracts/assignment/assignment.contract';

type Policy = { escalation: EscalationStep[]; escalation_step: number; status: string; created_at: Date };

/** When a step of an item's policy is due: `after` the item's creation. */
export const dueAt = (row: Pick<Policy, 'created_at'>, step: EscalationStep) =>
  new Date(row.created_at.getTime() + (durationMs(step.after) ?? 0));

/** The next step of an open item's policy with when it is due, or null (none left, or not open). */
export function nextStep(row: Policy): { step: EscalationStep; at: Date } | null {
  const step = row.escalation[row.escalation_step];
  return step && row.status === 'open' ? { step, at: dueAt(row, step) } : null;
}
