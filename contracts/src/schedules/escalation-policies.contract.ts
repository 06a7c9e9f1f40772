import { z } from 'zod';
import type { Assignee, EscalationStep } from '../assignment/assignment.contract';
import { ZName } from '../channels/channels.contract';

/** Bounds of an escalation policy (decisions.md, "On-call"). */
export const POLICY_LIMITS = { levels: 10, targets: 10, repeats: 5, delayMinutes: 1440 };

export const ZPolicyTarget = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('user'), id: z.uuid() }),
    z.strictObject({ type: z.literal('team'), id: z.uuid() }),
    z.strictObject({ type: z.literal('schedule'), id: z.uuid() }),
  ])
  .describe('A member, a team, or whoever is on call on a schedule when the level runs')
  .meta({ id: 'EscalationTarget' });
export type PolicyTarget = z.infer<typeof ZPolicyTarget>;

export const ZPolicyLevel = z
  .strictObject({
    targets: z
      .array(ZPolicyTarget)
      .min(1)
      .max(POLICY_LIMITS.targets)
      .refine((list) => new Set(list.map((t) => `${t.type}:${t.id}`)).size === list.length, {
        message: 'listed twice',
      }),
    delay_minutes: z
      .number()
      .int()
      .min(1)
      .max(POLICY_LIMITS.delayMinutes)
      .describe(
        'Minutes this level has before the next one runs (after the last: before the policy repeats)',
      ),
  })
  .meta({ id: 'EscalationLevel' });
export type PolicyLevel = z.infer<typeof ZPolicyLevel>;

export const ZEscalationPolicy = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    levels: z.array(ZPolicyLevel).describe('In order: the first level is notified when the item is created'),
    repeats: z.number().int().describe('How many more times the whole policy runs after its last level'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'EscalationPolicy' });
export type EscalationPolicyView = z.infer<typeof ZEscalationPolicy>;

const policyFields = {
  name: ZName,
  description: z.string().max(500).optional(),
  levels: z.array(ZPolicyLevel).min(1).max(POLICY_LIMITS.levels),
  repeats: z.number().int().min(0).max(POLICY_LIMITS.repeats).default(0),
};

export const ZCreateEscalationPolicyInput = z.strictObject(policyFields);
export type CreateEscalationPolicyInput = z.infer<typeof ZCreateEscalationPolicyInput>;
export const ZReplaceEscalationPolicyInput = z.strictObject({ id: z.uuid(), ...policyFields });
export type ReplaceEscalationPolicyInput = z.infer<typeof ZReplaceEscalationPolicyInput>;
export const ZEscalationPolicyId = z.strictObject({ id: z.uuid() });

/**
 * A policy as an item's assignment: the first level's targets join the assignees when the item
 * is created; every later level (and every level of each repeat) is an `escalate` step due the
 * sum of the delays before it.
 */
export function policyAssignment(policy: Pick<EscalationPolicyView, 'levels' | 'repeats'>): {
  first: Assignee[];
  steps: EscalationStep[];
} {
  const runs = Array.from({ length: policy.repeats + 1 }, () => policy.levels).flat();
  const steps: EscalationStep[] = [];
  let minutes = 0;
  runs.forEach((level, i) => {
    if (i === 0) return;
    minutes += runs[i - 1]?.delay_minutes ?? 0;
    steps.push({ after: `PT${minutes}M`, action: 'escalate', to: level.targets });
  });
  return { first: policy.levels[0]?.targets ?? [], steps };
}

const tags = ['escalation-policies'];
const op = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: `/${string}`, summary: string) =>
  ({ openapi: { method, path, protect: true, tags, summary } }) as const;

export const escalationPolicyMeta = {
  list: op('GET', '/escalation-policies', 'List escalation policies by name'),
  create: { ...op('POST', '/escalation-policies', 'Create an escalation policy'), status: 201 },
  get: op('GET', '/escalation-policies/{id}', 'Get an escalation policy'),
  replace: op(
    'PUT',
    '/escalation-policies/{id}',
    'Replace an escalation policy (items already created keep their steps)',
  ),
  delete: op(
    'DELETE',
    '/escalation-policies/{id}',
    'Delete an escalation policy no channel or template names (answers the deleted policy)',
  ),
} as const;
