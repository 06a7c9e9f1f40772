// Timeout policies and approvals (docs/api.md, "Timeout policies and approvals"): checked against
// the form when an item is created, then applied at the deadline and on each answer.

import type { Form } from '@beckon/contracts/items/form.contract';
import type {
  ApprovalsInput,
  ApprovalsView,
  ItemResponse,
  OnTimeout,
} from '@beckon/contracts/items/policies.contract';
import type { Actor } from '../../../auth/identity';
import { AppError } from '../../../errors';
import { validateAnswer } from '../forms/form-answer';
import { checkTimeoutAnswer } from './approvers';

/** The approvals rule as stored on the item: the view's fields less the counts, plus the creator. */
export type StoredApprovals = Omit<
  ApprovalsView,
  'approved' | 'rejected' | 'allow_agents' | 'allow_timeout_answer'
> & {
  /** The person who created the item (an API key's owner), for `exclude_creator`. */
  creator_user_id: string;
  /** Absent from items created before agents could be allowed: false. */
  allow_agents?: boolean;
  allow_timeout_answer?: boolean;
};

type Policies = { form?: Form; deadline_at?: Date; on_timeout?: OnTimeout; approvals?: ApprovalsInput };

const DECIDING_TYPES = new Set(['yesno', 'select', 'radio']);

/** The timeout policy to store (null: expire, the default), or a 400 naming the bad fields. */
function timeoutPolicy({ form, deadline_at, on_timeout }: Policies): OnTimeout | null {
  if (!on_timeout || on_timeout.action === 'expire') return null;
  if (!deadline_at) throw AppError.invalid({ on_timeout: 'needs deadline_at' });
  if (on_timeout.action === 'dismiss') return on_timeout;
  if (!form) throw AppError.invalid({ on_timeout: 'answering needs a form' });
  const answer = validateAnswer(form, on_timeout.values);
  if (!answer.ok) {
    const fields = Object.entries(answer.fields).map(([id, message]) => [`on_timeout.values.${id}`, message]);
    throw AppError.invalid(Object.fromEntries(fields));
  }
  return { action: 'answer', values: answer.values };
}

/** The approvals rule to store (defaults filled in), or a 400 naming the bad fields. */
function approvalsRule({ form, approvals }: Policies, creatorUserId: string): StoredApprovals | null {
  if (!approvals) return null;
  if (!form) throw AppError.invalid({ approvals: 'needs a form' });
  const field = approvals.field
    ? form.fields.find((f) => f.id === approvals.field)
    : form.fields.find((f) => f.type === 'yesno');
  if (!field) {
    throw AppError.invalid({
      'approvals.field': approvals.field
        ? 'unknown field'
        : 'the form has no yesno field: name a select or radio field',
    });
  }
  if (!DECIDING_TYPES.has(field.type))
    throw AppError.invalid({ 'approvals.field': 'must be a yesno, select or radio field' });
  const approveValue = approvals.approve_value ?? null;
  if (field.type === 'yesno' && approveValue !== null)
    throw AppError.invalid({ 'approvals.approve_value': 'only for a select or radio field (yes approves)' });
  if (field.type === 'select' || field.type === 'radio') {
    if (approveValue === null) throw AppError.invalid({ 'approvals.approve_value': 'Required' });
    if (!field.options.some((o) => o.value === approveValue))
      throw AppError.invalid({ 'approvals.approve_value': 'must be one of the field options' });
  }
  return {
    required: approvals.required,
    field: field.id,
    approve_value: approveValue,
    exclude_creator: approvals.exclude_creator ?? true,
    any_rejection_closes: approvals.any_rejection_closes ?? false,
    allow_agents: approvals.allow_agents ?? false,
    allow_timeout_answer: approvals.allow_timeout_answer ?? false,
    creator_user_id: creatorUserId,
  };
}

/** Both policies of a new item, checked against its form (after its template filled it in). */
export function itemPolicies(fields: Policies, creatorUserId: string) {
  const policies = { on_timeout: timeoutPolicy(fields), approvals: approvalsRule(fields, creatorUserId) };
  checkTimeoutAnswer(policies);
  return policies;
}

/** The rule as the item view shows it, with the counts so far. */
export function approvalsView(
  stored: StoredApprovals | null,
  responses: readonly ItemResponse[],
): ApprovalsView | null {
  if (!stored) return null;
  const { creator_user_id: _creator, ...rule } = stored;
  const counted = responses.filter((r) => r.by.type !== 'policy');
  return {
    ...rule,
    allow_agents: rule.allow_agents ?? false,
    allow_timeout_answer: rule.allow_timeout_answer ?? false,
    approved: counted.filter((r) => r.approves === true).length,
    rejected: counted.filter((r) => r.approves === false).length,
  };
}

/** Whether values approve (true), reject (false), or leave the deciding field blank (null). */
function decision(rule: StoredApprovals, values: Record<string, unknown>): boolean | null {
  const value = values[rule.field];
  if (value === undefined) return null;
  return rule.approve_value === null ? value === true : value === rule.approve_value;
}

export type AnswerStep = { response: ItemResponse; closes: boolean };

/**
 * One answer to an open item (its row locked by the caller): the response to append, and whether
 * it decides the item. Without an approvals rule, and for the policy, it always does; with one, a
 * person answers once (409), the creator not at all when excluded (403), and the item is decided
 * by the `required`-th approval, or by a rejection when `any_rejection_closes`.
 */
export function answerStep(
  item: { approvals: StoredApprovals | null; responses: readonly ItemResponse[] },
  by: Actor,
  userId: string | null,
  values: Record<string, unknown>,
  at: Date,
): AnswerStep {
  const rule = item.approvals;
  const approves = rule ? decision(rule, values) : null;
  const response: ItemResponse = { by, user_id: userId, values, approves, at: at.toISOString() };
  if (!rule || by.type === 'policy') return { response, closes: true };
  if (rule.exclude_creator && userId === rule.creator_user_id)
    throw AppError.forbidden('creator_may_not_answer', "the item's creator may not answer it");
  if (item.responses.some((r) => r.user_id === userId))
    throw AppError.conflict('already_answered', 'you have already answered this item', { status: 'open' });
  if (approves === null)
    throw AppError.validationFailed({ [rule.field]: 'required: it decides the approval' });
  const approved = item.responses.filter((r) => r.approves === true && r.by.type !== 'policy').length;
  const closes = approves ? approved + 1 >= rule.required : rule.any_rejection_closes;
  return { response, closes };
}
