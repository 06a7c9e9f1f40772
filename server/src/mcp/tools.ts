import { ZName } from '@beckon/contracts/channels/channels.contract';
import {
  ZCreateGrantInput,
  ZGateGrant,
  ZGateRequest,
  ZGateRequestInput,
} from '@beckon/contracts/gate/gate.contract';
import { ZAddCommentInput, ZComment } from '@beckon/contracts/items/comments.contract';
import { ZForm } from '@beckon/contracts/items/form.contract';
import {
  ZItem,
  ZItemFields,
  ZItemId,
  ZItemList,
  ZListItemsInput,
  ZSnoozeInput,
} from '@beckon/contracts/items/item.contract';
import { z } from 'zod';
import type { createCaller } from '../app-router';
import { MAX_WAIT_SECONDS } from './item-wait';

type Caller = ReturnType<typeof createCaller>;

/** What a client may assume about a tool (MCP annotations: hints, honest ones). */
type Hints = {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

/**
 * One agent tool: its arguments (derived from the procedure's contract), the procedure's output
 * contract (its `outputSchema`), and the call it makes.
 */
export type AgentTool<Input extends z.ZodObject = z.ZodObject> = {
  name: string;
  title: string;
  description: string;
  input: Input;
  output: z.ZodType;
  annotations: Hints;
  /** Whether the tool creates an item (it then takes `idempotency_key`). */
  creates?: boolean;
  /**
   * Whether the tool can wait for the item's outcome: it takes `wait_seconds` and may run as an
   * MCP task (`execution.taskSupport: "optional"`).
   */
  waits?: boolean;
  /** Called with the arguments as sent (once they passed `input`): the procedure parses them. */
  call: (caller: Caller, args: z.input<Input>) => Promise<unknown>;
};

const tool = <Input extends z.ZodObject>(definition: AgentTool<Input>) => definition as unknown as AgentTool;

const ZIdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe('Retrying with the same key and arguments returns the first result instead of creating twice');

const ZWaitSeconds = z
  .number()
  .int()
  .min(0)
  .max(MAX_WAIT_SECONDS)
  .optional()
  .describe(
    `Wait up to this many seconds (at most ${MAX_WAIT_SECONDS}) for a person's outcome; if none arrives in time the open item is returned: call service.get with its id and wait_seconds again`,
  );

const itemFields = z.object({
  message: ZItemFields.shape.message.describe('Longer text (plain text or Markdown)'),
  level: ZItemFields.shape.level.describe('info, warning, error or success; default info'),
  tags: ZItemFields.shape.tags.describe('Up to 20 short labels'),
  metadata: ZItemFields.shape.metadata.describe('Any JSON object (≤ 16 KiB), returned as is'),
});
const ZId = ZItemId.shape.id.describe('Item id (UUID)');

/** service.ask's deadline and what happens then, and approvals by several people (policies.contract.ts). */
const askPolicies = z.object({
  deadline_at: z.iso
    .datetime({ offset: true })
    .optional()
    .describe('ISO 8601 time: when nobody has decided by then, on_timeout applies'),
  on_timeout: ZItemFields.shape.on_timeout.describe(
    'At the deadline: {action:"expire"} (default), {action:"answer", values:{...}} (answered_by {type:"policy"}) or {action:"dismiss"}',
  ),
  approvals: ZItemFields.shape.approvals.describe(
    '{required:N, field?, approve_value?, exclude_creator? (default true), any_rejection_closes?, allow_agents? (default false: only people answer), allow_timeout_answer? (default false: an on_timeout answer is refused)}: answered once N distinct people approve',
  ),
});

const ZNotifyArgs = z.strictObject({
  title: ZItemFields.shape.title.unwrap().describe('Short headline people see first'),
  ...itemFields.shape,
  channel: ZName.optional().describe('Channel name (must exist)'),
  priority: ZItemFields.shape.priority.describe('0 (lowest) to 4 (most urgent); default 2'),
  // Who should answer, and reminders and escalation while nobody does (assignment.contract.ts).
  assignees: ZItemFields.shape.assignees,
  escalation: ZItemFields.shape.escalation,
  idempotency_key: ZIdempotencyKey,
});

/**
 * The eight tools of the specification, service.get and the gate's two (docs/agents.md), each
 * calling one tRPC procedure.
 */
export const AGENT_TOOLS: AgentTool[] = [
  tool({
    name: 'service.notify',
    title: 'Notify people',
    output: ZItem,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    description:
      'Send a notification to the people of your organization. Returns the created item (id, status, ...).',
    input: ZNotifyArgs,
    creates: true,
    call: (caller, { idempotency_key: _key, ...args }) => caller.items.create(args),
  }),
  tool({
    name: 'service.ask',
    title: 'Ask people a question',
    output: ZItem,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    description:
      'Ask people a question with a form they fill in. Returns the created item; its status becomes "answered" with `response` holding the values. People take minutes or hours: run it as a task (tasks/result returns the answered item), or pass wait_seconds, or follow it with service.get, service.list, the event stream or callback_url.',
    input: ZNotifyArgs.extend({
      form: ZForm.describe(
        'Form: {id, fields:[{id, type: yesno|text|textarea|number|select|radio|multiselect|checkbox|date, label, required?, options?:[{value,label}]}]}',
      ),
      ...askPolicies.shape,
      callback_url: ZItemFields.shape.callback_url.describe('HTTPS URL that receives the signed outcome'),
      wait_seconds: ZWaitSeconds,
      ask_requester: z
        .boolean()
        .optional()
        .describe(
          'Protocol 2026-07-28: when your client supports elicitation, also ask the person running you right here in the chat (a form, or a link to the question); others it was sent to can still answer',
        ),
    }),
    creates: true,
    waits: true,
    call: (caller, { idempotency_key: _key, wait_seconds: _wait, ask_requester: _ask, ...args }) =>
      caller.items.create(args),
  }),
  tool({
    name: 'service.get',
    title: 'Get an item',
    output: ZItem,
    annotations: { readOnlyHint: true, openWorldHint: false },
    description:
      'Get an item by id (status, response once answered). With wait_seconds, waits for its outcome; as a task, tasks/result returns it once it has one.',
    input: z.strictObject({ id: ZId, wait_seconds: ZWaitSeconds }),
    waits: true,
    call: (caller, { id }) => caller.items.get({ id }),
  }),
  tool({
    name: 'service.list',
    title: 'List items',
    output: ZItemList,
    annotations: { readOnlyHint: true, openWorldHint: false },
    description: 'List items, pinned first then newest first. Returns {items, next_cursor}.',
    input: z.strictObject({
      status: ZListItemsInput.shape.status.describe(
        'open, answered, dismissed, archived, expired or withdrawn',
      ),
      channel: ZName.optional().describe('Channel name'),
      limit: z.number().int().min(1).optional().describe('Page size, default 50, capped at 200'),
      cursor: ZListItemsInput.shape.cursor.describe('next_cursor of the previous page'),
      include_archived: z.boolean().optional(),
      include_snoozed: z.boolean().optional(),
      assigned_to_me: z
        .boolean()
        .optional()
        .describe("Only items assigned to the credential's person, their teams or their role"),
      claimed_by_me: z.boolean().optional().describe("Only items the credential's person claimed"),
    }),
    call: (caller, args) => caller.items.list(args),
  }),
  tool({
    name: 'service.ack',
    title: 'Mark an item seen',
    output: ZItem,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description: 'Mark an item as seen (acked_at). Returns the item.',
    input: z.strictObject({ id: ZId }),
    call: (caller, args) => caller.items.ack(args),
  }),
  tool({
    name: 'service.dismiss',
    title: 'Dismiss an item',
    output: ZItem,
    // Dismissing again changes nothing (it is refused): idempotent.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    description: 'Dismiss an open or answered item. Returns the item.',
    input: z.strictObject({ id: ZId }),
    call: (caller, args) => caller.items.dismiss(args),
  }),
  tool({
    name: 'service.snooze',
    title: 'Snooze an item',
    output: ZItem,
    // Each call records an event (and its webhooks): not idempotent.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    description: 'Hide an item from lists until a time. Returns the item.',
    input: z.strictObject({
      id: ZId,
      until: ZSnoozeInput.shape.until.describe('ISO 8601 time in the future'),
    }),
    call: (caller, args) => caller.items.snooze(args),
  }),
  tool({
    name: 'service.comment_add',
    title: 'Comment on an item',
    output: ZComment,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    description: 'Add a comment to an item. Returns the comment.',
    input: z.strictObject({ id: ZId, text: ZAddCommentInput.shape.body.describe('Comment text') }),
    call: (caller, { id, text }) => caller.items.addComment({ id, body: text }),
  }),
  tool({
    name: 'service.update',
    title: 'Change an item',
    output: ZItem,
    // tags and metadata are replaced (destructive); each call records an event.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    description: 'Change an item. tags and metadata replace the previous values. Returns the item.',
    input: ZNotifyArgs.pick({
      title: true,
      message: true,
      level: true,
      priority: true,
      tags: true,
      metadata: true,
    })
      .partial()
      .extend({ id: ZId }),
    call: (caller, args) => caller.items.update(args),
  }),
  tool({
    name: 'service.gate_request',
    title: 'Ask whether a tool call may run',
    output: ZGateRequest,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    description:
      'Before running a sensitive tool call: returns {grant} when a person allowed this rule for a while (run it), otherwise {item}, a question with allow / allow for N minutes / deny and a note. Wait with service.get (wait_seconds); when answered "allow_for", call service.gate_grant so the next calls pass.',
    input: ZGateRequestInput.extend({ idempotency_key: ZIdempotencyKey }),
    creates: true,
    call: (caller, { idempotency_key: _key, ...args }) => caller.gate.request(args),
  }),
  tool({
    name: 'service.gate_grant',
    title: 'Record a time-limited grant',
    output: ZGateGrant,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description:
      'After a gate request was answered "allow_for": records the grant, so service.gate_request passes for the same rule until it expires. Returns the grant.',
    input: z.strictObject({ item_id: ZCreateGrantInput.shape.item_id }),
    call: (caller, args) => caller.gate.grant(args),
  }),
];
