// Who may decide an item collecting approvals (docs/api.md, "Timeout policies and approvals"):
// people, and agents or the timeout policy only where the item says so.

import type { OnTimeout } from '@beckon/contracts/items/policies.contract';
import type { Identity } from '../../../auth/identity';
import { AppError } from '../../../errors';

/** The parts of a stored approvals rule these checks read (absent flags are false). */
type ApproverRule = { allow_agents?: boolean; allow_timeout_answer?: boolean };

/**
 * Whether a credential acts for a person: a dashboard session, a mail's or a notification's
 * signed link, a linked Slack, Telegram, Discord or Teams user, a verified phone. An API key, a third-party client's OAuth token and an inbound webhook act for an
 * agent, even though each has a person behind it.
 */
export function actsForPerson(identity: Identity): boolean {
  if (
    [
      'email_link',
      'slack_link',
      'telegram_link',
      'discord_link',
      'teams_link',
      'push_link',
      'phone_link',
    ].includes(identity.source)
  )
    return true;
  return identity.source === 'session' && identity.clientId === null;
}

/**
 * Checked before an answer to an item collecting approvals is counted: an agent is refused (403)
 * unless the item has `allow_agents`. Answers what the audit entry of the answer records: for an
 * agent let in, `allow_agents: true` (and the OAuth client), so the log says why it counted.
 */
export function approverCheck(rule: ApproverRule | null, identity: Identity | null): Record<string, unknown> {
  // No identity: the service itself (the timeout policy), allowed at creation (checkTimeoutAnswer).
  if (!rule || !identity || actsForPerson(identity)) return {};
  if (!rule.allow_agents) {
    throw AppError.forbidden(
      'agent_may_not_answer',
      'an agent may not answer an item collecting approvals (approvals.allow_agents is off)',
    );
  }
  return { allow_agents: true, ...(identity.clientId ? { client_id: identity.clientId } : {}) };
}

/**
 * What the creation's audit entry records of an approvals rule that lets more than people decide
 * (nothing for one that does not), so the log shows who was allowed to approve from the start.
 */
export function approvalsAuditData(rule: ApproverRule | null): Record<string, unknown> {
  if (!rule?.allow_agents && !rule?.allow_timeout_answer) return {};
  return {
    approvals: {
      allow_agents: rule.allow_agents === true,
      allow_timeout_answer: rule.allow_timeout_answer === true,
    },
  };
}

/**
 * An `on_timeout` answer would decide an item collecting approvals with nobody approving: refused
 * (400 naming the field) unless the rule says `allow_timeout_answer` (silence is never consent).
 * Expiring or dismissing at the deadline decides nothing and is always allowed.
 */
export function checkTimeoutAnswer(policies: {
  on_timeout: OnTimeout | null;
  approvals: ApproverRule | null;
}): void {
  const { on_timeout, approvals } = policies;
  if (on_timeout?.action !== 'answer' || !approvals || approvals.allow_timeout_answer) return;
  throw AppError.invalid({
    on_timeout:
      'an item collecting approvals is not answered by its timeout policy unless approvals.allow_timeout_answer is true (or use expire or dismiss)',
  });
}
