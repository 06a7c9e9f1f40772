import { z } from 'zod';

/** Bounds of an item's assignees and escalation policy (decisions.md, "Assignees, claims, escalation"). */
export const ASSIGNMENT_LIMITS = { assignees: 20, steps: 10, maxAfterDays: 365 };

/**
 * Who an item is for: a member, a team of the organization, everyone holding a role (by name:
 * a system role such as `admin`, or one of the organization's own), or whoever is on call on one
 * of its schedules (resolved to that person, added as a user, when the item is created or
 * assigned and at each escalation step).
 */
export const ZAssignee = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('user'), id: z.uuid() }),
    z.strictObject({ type: z.literal('team'), id: z.uuid() }),
    z.strictObject({ type: z.literal('role'), name: z.string().min(1).max(100) }),
    z.strictObject({ type: z.literal('schedule'), id: z.uuid() }),
  ])
  .meta({ id: 'Assignee' });
export type Assignee = z.infer<typeof ZAssignee>;

export const ZAssignees = z
  .array(ZAssignee)
  .max(ASSIGNMENT_LIMITS.assignees)
  .refine((list) => new Set(list.map(assigneeKey)).size === list.length, { message: 'listed twice' });

/** `user:<id>`, `team:<id>`, `role:<name>`, `schedule:<id>`: how a list filter matches an assignee. */
export function assigneeKey(assignee: Assignee): string {
  return assignee.type === 'role' ? `role:${assignee.name}` : `${assignee.type}:${assignee.id}`;
}

const DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** Milliseconds of an ISO 8601 duration of days, hours, minutes, seconds (`PT30M`, `P1DT2H`), or null. */
export function durationMs(text: string): number | null {
  const match = DURATION.exec(text);
  if (!match || text === 'P' || text.endsWith('T')) return null;
  const [days = 0, hours = 0, minutes = 0, seconds = 0] = match.slice(1).map((part) => Number(part ?? 0));
  return (((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000;
}

const ZAfter = z
  .string()
  .max(40)
  .refine((text) => durationMs(text) !== null, {
    message: 'must be an ISO 8601 duration of days, hours, minutes, seconds, e.g. PT30M or P1DT2H',
  })
  .refine(
    (text) => {
      const ms = durationMs(text) ?? 0;
      return ms >= 1000 && ms <= ASSIGNMENT_LIMITS.maxAfterDays * 86_400_000;
    },
    { message: `must be between 1 second and ${ASSIGNMENT_LIMITS.maxAfterDays} days` },
  )
  .describe('ISO 8601 duration after the item was created, e.g. PT30M');

export const ZEscalationStep = z
  .discriminatedUnion('action', [
    z.strictObject({ after: ZAfter, action: z.literal('remind') }),
    z.strictObject({
      after: ZAfter,
      action: z.literal('escalate'),
      to: ZAssignees.min(1).describe('Added to the assignees, and notified'),
    }),
  ])
  .meta({ id: 'EscalationStep' });
export type EscalationStep = z.infer<typeof ZEscalationStep>;

/**
 * Reminders and escalation while an item stays open: each step runs `after` the item's creation
 * (later steps later). `remind` notifies whoever it is waiting for (its claimer, else its
 * assignees, else everyone); `escalate` adds `to` to the assignees and notifies them.
 */
export const ZEscalation = z
  .array(ZEscalationStep)
  .max(ASSIGNMENT_LIMITS.steps)
  .refine(
    (steps) =>
      steps.every(
        (step, i) => i === 0 || (durationMs(step.after) ?? 0) > (durationMs(steps[i - 1]?.after ?? '') ?? 0),
      ),
    { message: 'each step must come after the previous one' },
  )
  .meta({ id: 'Escalation' });
export type Escalation = z.infer<typeof ZEscalation>;

const ZClaimer = z.object({ type: z.enum(['user', 'agent']), id: z.uuid() });

/** What an item shows of them (ZItem). */
export const assignmentView = {
  assignees: z.array(ZAssignee),
  claimed_by: ZClaimer.nullable().describe('Who is working on it (POST /items/{id}/claim)'),
  claimed_at: z.string().nullable(),
  escalation: z
    .array(ZEscalationStep)
    .describe('Reminders and escalation steps (none: []), a named policy’s as copied at creation'),
  escalation_policy_id: z.uuid().nullable().describe('The escalation policy its steps were copied from'),
  escalation_step: z.number().int().describe('How many steps have run'),
  next_escalation_at: z.string().nullable().describe('When the next step runs while the item is open'),
};

/** What an item-creation request (and a template) may give. */
export const assignmentFields = {
  assignees: ZAssignees.optional().describe(
    'Who should answer: [{type:"user",id}, {type:"team",id}, {type:"role",name}, {type:"schedule",id}]; pushes go to them',
  ),
  escalation: ZEscalation.optional().describe(
    'Steps while open, e.g. [{after:"PT30M",action:"remind"},{after:"PT2H",action:"escalate",to:[{type:"role",name:"admin"}]}]; default: the channel’s; [] for none',
  ),
  escalation_policy_id: z
    .uuid()
    .optional()
    .describe(
      'A named escalation policy instead of `escalation` (GET /escalation-policies): its first level joins the assignees, the later ones become its steps',
    ),
};

export const ZAssignInput = z.strictObject({
  id: z.uuid(),
  assignees: ZAssignees.describe('Replaces the assignees; the ones added are notified'),
});

const tags = ['items'];
const post = (name: string, summary: string, description?: string) =>
  ({
    openapi: { method: 'POST', path: `/items/{id}/${name}`, protect: true, tags, summary, description },
  }) as const;

export const assignmentMeta = {
  assign: post('assign', 'Set the assignees (those added are notified)'),
  claim: post(
    'claim',
    'Claim an open item: say you are working on it',
    'Visible to everyone. 409 when the item is not open or someone else holds the claim; claiming your own claim again changes nothing.',
  ),
  unclaim: post(
    'unclaim',
    'Release a claim (your own; anyone’s with org.manage)',
    'An item nobody claims answers as it is.',
  ),
} as const;
