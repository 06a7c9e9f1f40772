import { z } from 'zod';
import { assignmentFields, assignmentView } from '../assignment/assignment.contract';
import { ZName } from '../channels/channels.contract';
import { answerSources, itemLevels, itemStatuses } from '../enums';
import { ZPageLimit } from '../paging';
import { ZForm } from './form.contract';
import { ZActor, ZApprovals, ZApprovalsInput, ZOnTimeout, ZResponse } from './policies.contract';
import { ZRequireReauth } from './reauth.contract';

/** Size limits of decisions.md. */
export const LIMITS = {
  title: 500,
  message: 20_000,
  tags: 20,
  tag: 64,
  metadataBytes: 16 * 1024,
  comment: 10_000,
};

const ZTimestamp = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

export const ZMetadata = z
  .record(z.string(), z.unknown())
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= LIMITS.metadataBytes, {
    message: `must be at most ${LIMITS.metadataBytes} bytes as JSON`,
  });
export const ZTags = z.array(z.string().min(1).max(LIMITS.tag)).max(LIMITS.tags);
export const ZLevel = z.enum(itemLevels);
export const ZPriority = z.number().int().min(0).max(4);
const ZHttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000);

/** An action bound to an item (contracts/src/proofs/action.ts): its digest is what is decided. */
export const ZItemActionInput = z
  .strictObject({
    kind: z.string().min(1).max(200).describe('What will run, e.g. "deploy" or "payments.refund"'),
    args: z
      .record(z.string(), z.unknown())
      .refine((a) => Buffer.byteLength(JSON.stringify(a)) <= LIMITS.metadataBytes, {
        message: `must be at most ${LIMITS.metadataBytes} bytes as JSON`,
      })
      .describe('Its exact arguments, as JSON'),
    policy_version: z.string().min(1).max(200).optional().describe('The policy the request was made under'),
  })
  .meta({ id: 'ItemActionInput' });

export const ZItemAction = z
  .object({
    kind: z.string(),
    args: z.record(z.string(), z.unknown()),
    policy_version: z.string().nullable(),
    digest: z
      .string()
      .describe('SHA-256 (hex) over the RFC 8785 (JCS) form of {kind, args, policy_version if any}'),
  })
  .meta({ id: 'ItemAction' });

/** Notifications again every few minutes until someone acknowledges (decisions.md, "On-call"). */
export const ZRepeatUntilAck = z
  .strictObject({
    every_minutes: z.number().int().min(1).max(1440).describe('Minutes between notifications'),
  })
  .meta({ id: 'RepeatUntilAck' });

export const ZItem = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    title: z.string(),
    message: z.string().nullable(),
    level: ZLevel,
    priority: z.number().int(),
    channel_id: z.uuid().nullable(),
    channel: z.string().nullable().describe('Channel name'),
    tags: z.array(z.string()),
    form: ZForm.nullable(),
    action: ZItemAction.nullable().describe('The action the answer decides, bound at creation'),
    receipt: z
      .string()
      .nullable()
      .describe(
        'The signed receipt (compact JWS, EdDSA) of the decision: verify with GET /.well-known/jwks.json?org_id=',
      ),
    require_reauth: ZRequireReauth.nullable().describe(
      'Answering needs a fresh verification (a passkey, or any sign-in) within the minutes given',
    ),
    metadata: z.record(z.string(), z.unknown()),
    callback_url: z.string().nullable(),
    deadline_at: z.string().nullable(),
    status: z.enum(itemStatuses),
    response: z.record(z.string(), z.unknown()).nullable(),
    answered_at: z.string().nullable(),
    answered_by: ZActor.nullable(),
    answered_via: z
      .enum(answerSources)
      .nullable()
      .describe('Where the answer came from: email, slack; null for the API and the dashboard'),
    acked_at: z.string().nullable().describe('When someone acknowledged it (POST /items/{id}/ack)'),
    acked_by: ZActor.nullable().describe('Who acknowledged it'),
    repeat_until_ack: ZRepeatUntilAck.nullable().describe(
      'Its assignees are notified again at this pace while it is open and nobody acknowledged it',
    ),
    snoozed_until: z.string().nullable(),
    pinned: z.boolean(),
    archived_at: z.string().nullable(),
    // Who answers and what happens while nobody does (assignment.contract.ts).
    ...assignmentView,
    created_by: ZActor,
    agent_id: z.uuid().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    // Policies (policies.contract.ts): what happens at the deadline, several approvers, every answer.
    on_timeout: ZOnTimeout.describe('What happens at the deadline'),
    approvals: ZApprovals.nullable(),
    responses: z.array(ZResponse).describe('Every answer, oldest first'),
    names: z
      .record(z.string(), z.string())
      .describe(
        'Display names by id of the people (name, else email), agents and teams the item refers to (created_by, answered_by, claimed_by, assignees, responses, escalation)',
      ),
  })
  .meta({ id: 'Item' });
export type ItemView = z.infer<typeof ZItem>;

/** Defaults of a created item, applied after a template has filled what the request left out. */
export const ITEM_DEFAULTS = { level: 'info', priority: 2, tags: [], metadata: {} } satisfies {
  level: z.infer<typeof ZLevel>;
  priority: number;
  tags: string[];
  metadata: Record<string, unknown>;
};

/**
 * The item-creation fields, every one optional and without zod defaults (so that "left out" stays
 * visible): a template holds a subset of them, and a create request needs a title from itself or
 * from its template.
 */
export const ZItemFields = z.strictObject({
  title: z.string().trim().min(1).max(LIMITS.title).optional(),
  message: z.string().max(LIMITS.message).optional(),
  level: ZLevel.optional().meta({ default: ITEM_DEFAULTS.level }),
  priority: ZPriority.optional().meta({ default: ITEM_DEFAULTS.priority }),
  channel_id: z.uuid().optional(),
  ...assignmentFields,
  tags: ZTags.optional().meta({ default: ITEM_DEFAULTS.tags }),
  form: ZForm.optional(),
  metadata: ZMetadata.optional().meta({ default: ITEM_DEFAULTS.metadata }),
  callback_url: ZHttpUrl.optional(),
  deadline_at: ZTimestamp.optional(),
  on_timeout: ZOnTimeout.optional().describe(
    'At the deadline: expire (default), answer with values, or dismiss; fixed at creation',
  ),
  approvals: ZApprovalsInput.optional().describe('Several distinct people must approve; needs a form'),
  repeat_until_ack: ZRepeatUntilAck.optional().describe(
    'Notify again every `every_minutes` on every channel of the first notification until someone acknowledges (POST /items/{id}/ack) or it leaves open',
  ),
  require_reauth: ZRequireReauth.optional().describe(
    "A risky decision: answering needs a fresh verification (the channel's default when absent)",
  ),
});
export type ItemFields = z.infer<typeof ZItemFields>;

const ZCreateItemFields = ZItemFields.extend({
  template: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe('Template name: its fields fill what the request leaves out'),
  channel: ZName.optional().describe('Channel name, instead of channel_id'),
  action: ZItemActionInput.optional().describe(
    'The action the answer decides: its digest is stored, shown and named by the outcome',
  ),
});

/** What a creation needs beyond each field's own rules (checked on any object body). */
const withCreationRules = <T extends z.ZodType<z.infer<typeof ZCreateItemFields>>>(schema: T) =>
  schema
    .refine((v) => v.title !== undefined || v.template !== undefined, {
      path: ['title'],
      message: 'Required',
      // Also reported beside other bad fields, as long as the body is an object.
      when: (payload) => typeof payload.value === 'object' && payload.value !== null,
    })
    .refine((v) => v.channel === undefined || v.channel_id === undefined, {
      path: ['channel'],
      message: 'give channel or channel_id, not both',
      when: (payload) => typeof payload.value === 'object' && payload.value !== null,
    });

export const ZCreateItemInput = withCreationRules(ZCreateItemFields);
export type CreateItemInput = z.infer<typeof ZCreateItemInput>;

/** An item from an external system: the body of a creation, and the inbound webhook's URL token. */
export const ZDeliverInboundInput = withCreationRules(
  ZCreateItemFields.extend({ token: z.string().min(1).max(200) }),
);

export const ZItemId = z.strictObject({ id: z.uuid() });

export const ZUpdateItemInput = z
  .strictObject({
    id: z.uuid(),
    title: z.string().trim().min(1).max(LIMITS.title).optional(),
    message: z.string().max(LIMITS.message).nullable().optional(),
    level: ZLevel.optional(),
    priority: ZPriority.optional(),
    channel_id: z.uuid().nullable().optional(),
    tags: ZTags.optional(),
    metadata: ZMetadata.optional(),
    deadline_at: ZTimestamp.nullable().optional(),
  })
  .refine((v) => Object.keys(v).length > 1, { message: 'nothing to update', path: [] });
export type UpdateItemInput = z.infer<typeof ZUpdateItemInput>;

/** `values` must be an object (else 400); its fields are checked against the form (else 422). */
export const ZAnswerInput = z.strictObject({
  id: z.uuid(),
  values: z.record(z.string(), z.unknown(), { error: 'must be an object of form values' }),
});
export const ZSnoozeInput = z.strictObject({ id: z.uuid(), until: ZTimestamp });

/** A boolean that also arrives as the query-string text `true` / `false`. */
const ZQueryBool = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());
export const ZListItemsInput = z.strictObject({
  limit: ZPageLimit,
  cursor: z.string().max(200).optional(),
  status: z.enum(itemStatuses).optional(),
  channel_id: z.uuid().optional(),
  channel: ZName.optional().describe('Channel name'),
  include_archived: ZQueryBool.default(false),
  include_snoozed: ZQueryBool.default(false),
  assigned_to_me: ZQueryBool.default(false).describe('Only items assigned to you, your teams or your role'),
  claimed_by_me: ZQueryBool.default(false).describe('Only items you claimed'),
  q: z.string().trim().min(1).max(200).optional(),
});
export type ListItemsInput = z.infer<typeof ZListItemsInput>;

export const ZItemList = z.object({ items: z.array(ZItem), next_cursor: z.string().nullable() });

const tags = ['items'];
const action = (name: string, summary: string) =>
  ({ openapi: { method: 'POST', path: `/items/{id}/${name}`, protect: true, tags, summary } }) as const;

export const itemMeta = {
  create: {
    status: 201,
    openapi: {
      method: 'POST',
      path: '/items',
      protect: true,
      tags,
      summary: 'Create an item',
      successDescription: 'The item',
      errorResponses: { 402: 'Plan limit reached', 403: 'Permission denied' },
    },
  },
  list: {
    openapi: {
      method: 'GET',
      path: '/items',
      protect: true,
      tags,
      summary: 'List items: pinned first, then newest',
    },
  },
  get: { openapi: { method: 'GET', path: '/items/{id}', protect: true, tags, summary: 'Get one item' } },
  update: {
    openapi: { method: 'PATCH', path: '/items/{id}', protect: true, tags, summary: 'Update fields' },
  },
  answer: action('answer', 'Answer the form (values are validated against it)'),
  ack: action('ack', 'Mark as viewed'),
  dismiss: action('dismiss', 'Dismiss'),
  archive: action('archive', 'Archive'),
  unarchive: action('unarchive', 'Unarchive (back to the status it had)'),
  restore: action('restore', 'Restore a dismissed, expired or withdrawn item'),
  withdraw: action('withdraw', 'Withdraw an open question (the asking side takes it back)'),
  snooze: action('snooze', 'Hide from lists until a future time'),
  unsnooze: action('unsnooze', 'Remove the snooze'),
  pin: action('pin', 'Pin to the top of lists'),
  unpin: action('unpin', 'Unpin'),
} as const;
