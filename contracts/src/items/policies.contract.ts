/**
 * What decides an item besides one person's answer: its timeout policy (what happens at the
 * deadline) and its approvals (several people must agree). Both are fixed at creation.
 */

import { z } from 'zod';
import { actorTypes } from '../enums';

/** The most approvals an item may require. */
export const MAX_APPROVALS = 50;

const ZValues = z.record(z.string(), z.unknown(), { error: 'must be an object of form values' });

/**
 * At the deadline: `expire` (the default), `answer` with these values (checked against the form at
 * creation), or `dismiss`. An answer or dismissal by the policy has `answered_by: {type: "policy"}`.
 */
export const ZOnTimeout = z
  .discriminatedUnion('action', [
    z.strictObject({ action: z.literal('expire') }),
    z.strictObject({ action: z.literal('answer'), values: ZValues }),
    z.strictObject({ action: z.literal('dismiss') }),
  ])
  .meta({ id: 'OnTimeout' });
export type OnTimeout = z.infer<typeof ZOnTimeout>;

/**
 * The item is answered once `required` distinct people approved. `field` is the form field that
 * decides (a yesno field: true approves; a select or radio field: `approve_value` approves, any
 * other option rejects); by default the form's first yesno field.
 */
export const ZApprovalsInput = z
  .strictObject({
    required: z.number().int().min(1).max(MAX_APPROVALS).describe('How many distinct people must approve'),
    field: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('The deciding field (default: the first yesno field)'),
    approve_value: z
      .string()
      .min(1)
      .optional()
      .describe('For a select or radio field: the option value that approves'),
    exclude_creator: z
      .boolean()
      .optional()
      .describe("The creator's own user (an API key's owner) may not answer (default true)"),
    any_rejection_closes: z
      .boolean()
      .optional()
      .describe('One rejection answers the item with it (default false: rejections are only recorded)'),
    allow_agents: z
      .boolean()
      .optional()
      .describe(
        'Agents (API keys, third-party OAuth clients) may answer too, each counting as its owner (default false: only people answer)',
      ),
    allow_timeout_answer: z
      .boolean()
      .optional()
      .describe(
        'An on_timeout answer may decide in place of the approvers (default false: such a policy is refused)',
      ),
  })
  .meta({ id: 'ApprovalsInput' });
export type ApprovalsInput = z.infer<typeof ZApprovalsInput>;

/** The approvals rule as stored and shown: every default filled in. */
export const ZApprovals = z
  .object({
    required: z.number().int(),
    field: z.string(),
    approve_value: z.string().nullable(),
    exclude_creator: z.boolean(),
    any_rejection_closes: z.boolean(),
    allow_agents: z.boolean(),
    allow_timeout_answer: z.boolean(),
    approved: z.number().int().describe('Approvals so far'),
    rejected: z.number().int().describe('Rejections so far'),
  })
  .meta({ id: 'Approvals' });
export type ApprovalsView = z.infer<typeof ZApprovals>;

/** Who acted: a person, an agent, the service itself (expiry), or an item's timeout policy. */
export const ZActor = z.object({ type: z.enum(actorTypes), id: z.uuid().nullable() });

/** One answer, in the order they came. */
export const ZResponse = z
  .object({
    by: ZActor,
    /** The person behind the answer (an API key's owner); null for the policy. */
    user_id: z.uuid().nullable(),
    values: z.record(z.string(), z.unknown()),
    /** Whether it counts as an approval (null when the item has no approvals rule). */
    approves: z.boolean().nullable(),
    at: z.string(),
  })
  .meta({ id: 'Response' });
export type ItemResponse = z.infer<typeof ZResponse>;
