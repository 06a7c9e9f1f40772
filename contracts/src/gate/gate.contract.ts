import { z } from 'zod';
import { ZAssignees } from '../assignment/assignment.contract';
import { ZName } from '../channels/channels.contract';
import { ZItem, ZItemFields, ZMetadata } from '../items/item.contract';
import { ZActor } from '../items/policies.contract';

/**
 * Gates: a person decides whether an agent's tool call may run (docs/agents.md). A gate request
 * is an item with the decision form below; an answer "allow for N minutes" becomes a grant, and
 * later requests of the same agent for the same rule pass without asking until it expires.
 */
export const GATE = {
  rule: 500,
  timeoutSeconds: { default: 300, min: 10, max: 7 * 86_400 },
  grantMinutes: { default: 30, min: 1, max: 24 * 60 },
  note: 2000,
} as const;

/** The decision field's values. */
export const GATE_DECISIONS = ['allow', 'allow_for', 'deny'] as const;
export type GateDecision = (typeof GATE_DECISIONS)[number];

/** The key of an item's metadata that marks it as a gate request. */
export const GATE_METADATA_KEY = 'beckon_gate';

const ZRule = z
  .string()
  .trim()
  .min(1)
  .max(GATE.rule)
  .describe(
    'The policy rule the call matched, e.g. "Bash(git push *)": a grant covers the calls matching it',
  );

export const ZGateRequestInput = z.strictObject({
  rule: ZRule,
  title: ZItemFields.shape.title.unwrap().describe('What the agent wants to do, e.g. "Bash: git push"'),
  message: ZItemFields.shape.message.describe('The full call (its input), for the person deciding'),
  assignees: ZAssignees.optional().describe('Who decides; everyone who may answer items by default'),
  channel: ZName.optional().describe('Channel name'),
  priority: ZItemFields.shape.priority,
  metadata: ZMetadata.optional().describe('Anything the agent wants to keep with the request'),
  timeout_seconds: z
    .number()
    .int()
    .min(GATE.timeoutSeconds.min)
    .max(GATE.timeoutSeconds.max)
    .default(GATE.timeoutSeconds.default)
    .describe('The item expires after this many seconds without a decision'),
  grant_minutes: z
    .number()
    .int()
    .min(GATE.grantMinutes.min)
    .max(GATE.grantMinutes.max)
    .default(GATE.grantMinutes.default)
    .describe('The N of the answer "allow for N minutes"'),
});
export type GateRequestInput = z.infer<typeof ZGateRequestInput>;

export const ZGateGrant = z
  .object({
    id: z.uuid(),
    rule: z.string(),
    agent_id: z.uuid().nullable(),
    item_id: z.uuid(),
    granted_by: ZActor,
    note: z.string().nullable(),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: 'GateGrant' });
export type GateGrantView = z.infer<typeof ZGateGrant>;

export const ZGateRequest = z
  .object({
    grant: ZGateGrant.nullable().describe(
      'A grant in force for this rule: the call may run, nobody was asked',
    ),
    item: ZItem.nullable().describe(
      'Otherwise the question: wait for its answer, then POST /api/gate/grants',
    ),
  })
  .meta({ id: 'GateRequest' });
export type GateRequestView = z.infer<typeof ZGateRequest>;

export const ZCreateGrantInput = z.strictObject({
  item_id: z.uuid().describe('A gate request answered "allow_for"'),
});
export const ZGrantId = z.strictObject({ id: z.uuid() });

const tags = ['gate'];
export const gateMeta = {
  request: {
    status: 201,
    openapi: {
      method: 'POST',
      path: '/gate/requests',
      protect: true,
      tags,
      summary: 'Ask whether a tool call may run: a grant in force, or a new question',
      successDescription: '`grant` when a grant covers the rule (nothing created), else the new `item`',
      errorResponses: { 402: 'Plan limit reached', 403: 'Permission denied' },
    },
  },
  grant: {
    status: 201,
    openapi: {
      method: 'POST',
      path: '/gate/grants',
      protect: true,
      tags,
      summary: 'Record the grant of a gate request answered "allow for N minutes" (once per item)',
      errorResponses: { 403: 'Not the requester', 404: 'Not found', 409: 'The answer grants no time' },
    },
  },
  list: {
    openapi: {
      method: 'GET',
      path: '/gate/grants',
      protect: true,
      tags,
      summary: "Grants in force: an agent's own, or the whole organization's for a person",
    },
  },
  revoke: {
    openapi: {
      method: 'DELETE',
      path: '/gate/grants/{id}',
      protect: true,
      tags,
      summary: 'Revoke a grant: the next matching call asks again (answers the revoked grant)',
    },
  },
} as const;
