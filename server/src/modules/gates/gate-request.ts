import {
  GATE,
  GATE_METADATA_KEY,
  type GateDecision,
  type GateRequestInput,
  type GateRequestView,
} from '@beckon/contracts/gate/gate.contract';
import type { Form } from '@beckon/contracts/items/form.contract';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { createItem } from '../items/operations/create-item';
import { grantInForce } from './gate-grants';

/** The question every gate request asks: a decision, and a note the agent reads as the reason. */
export function gateForm(grantMinutes: number): Form {
  const options: Array<{ value: GateDecision; label: string }> = [
    { value: 'allow', label: 'Allow once' },
    { value: 'allow_for', label: `Allow for ${grantMinutes} minutes` },
    { value: 'deny', label: 'Deny' },
  ];
  return {
    id: 'beckon_gate',
    fields: [
      { id: 'decision', type: 'radio', label: 'Decision', required: true, options },
      {
        id: 'note',
        type: 'textarea',
        label: 'Note for the agent (optional)',
        required: false,
        max_length: GATE.note,
      },
    ],
  };
}

/**
 * A tool call asking to run: passes at once under a grant in force for its rule, otherwise
 * becomes an item with the decision form that expires after `timeout_seconds`.
 */
export async function requestGate(
  deps: Deps,
  identity: Identity,
  input: GateRequestInput,
): Promise<GateRequestView> {
  const grant = await grantInForce(deps, identity, input.rule);
  if (grant) return { grant, item: null };
  const item = await createItem(deps, identity, {
    title: input.title,
    ...(input.message === undefined ? {} : { message: input.message }),
    level: 'warning',
    priority: input.priority ?? 3,
    tags: ['gate'],
    ...(input.channel === undefined ? {} : { channel: input.channel }),
    ...(input.assignees === undefined ? {} : { assignees: input.assignees }),
    form: gateForm(input.grant_minutes),
    metadata: {
      ...input.metadata,
      [GATE_METADATA_KEY]: { rule: input.rule, grant_minutes: input.grant_minutes },
    },
    deadline_at: new Date(deps.clock().getTime() + input.timeout_seconds * 1000),
  });
  return { grant: null, item };
}
