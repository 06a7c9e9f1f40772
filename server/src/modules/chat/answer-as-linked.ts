import { can } from '@beckon/contracts/permissions';
import type { Queryable } from '@beckon/db';
import { memberIdentity } from '../../auth/member-identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { mailChoices } from '../../mail/mail-choices';
import { actOnItem } from '../items/operations/act-on-item';
import { refusal } from './answer-refusal';
import { type ChatProvider, LINKS } from './link-codes';

/** What a button of a chat message does: answer with the form's choice at `index`, or acknowledge. */
export type ChatAction = { itemId: string; choice: number | 'ack' };

/**
 * A button's id as the app carries it back (Telegram's callback_data, at most 64 bytes; Discord's
 * custom_id): `a:<item>:<choice index>` or `k:<item>`. The form is fixed at creation, so an
 * index names the same answer for as long as the item lives.
 */
export const actionId = (action: ChatAction) =>
  action.choice === 'ack' ? `k:${action.itemId}` : `a:${action.itemId}:${action.choice}`;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const ACTION_ID = new RegExp(`^(?:k:(${UUID})|a:(${UUID}):(\\d{1,2}))$`);

export function parseActionId(id: string | undefined): ChatAction | null {
  const match = ACTION_ID.exec(id ?? '');
  if (!match) return null;
  if (match[1]) return { itemId: match[1], choice: 'ack' };
  return match[2] ? { itemId: match[2], choice: Number(match[3]) } : null;
}

/** Where a person links their account of the app: the dashboard's page of that app. */
export const linkPageUrl = (deps: Deps, provider: ChatProvider) => `${deps.env.APP_URL}/settings/${provider}`;

/** The Beckon member an account of the app is linked to in the organization, or null. */
export async function linkedUser(
  sql: Queryable,
  provider: ChatProvider,
  orgId: string,
  externalUserId: string,
): Promise<string | null> {
  const { table, column } = LINKS[provider];
  const [link] = await sql<{ user_id: string }[]>`
    select user_id from ${sql(table)} where org_id = ${orgId} and ${sql(column)} = ${externalUserId}`;
  return link?.user_id ?? null;
}

/**
 * A click on a chat message's button, answered as the person the clicking account is linked to
 * (in the organization whose bot or application received it, and only there), through the same
 * operation as every other answer. Answers what to tell the person.
 */
export async function actAsLinked(
  deps: Deps,
  provider: ChatProvider,
  orgId: string,
  externalUserId: string,
  action: ChatAction,
): Promise<string> {
  const userId = await linkedUser(deps.sql, provider, orgId, externalUserId);
  if (!userId) return `To answer here, link your account once in Beckon: ${linkPageUrl(deps, provider)}`;
  const person = { orgId, userId };
  const identity = await memberIdentity(
    deps.sql,
    person,
    `${provider}_link`,
    `${provider}:${externalUserId}`,
  );
  if (!identity) return 'Your linked Beckon account is no longer a member of this organization.';
  if (!can(identity.permissions, 'items.write')) return 'Your Beckon role may not answer items.';
  try {
    if (action.choice === 'ack') {
      await actOnItem(deps, identity, orgId, action.itemId, { action: 'ack', via: provider });
      return 'Acknowledged.';
    }
    const [item] = await deps.sql<{ form: Parameters<typeof mailChoices>[0] }[]>`
      select form from items where id = ${action.itemId} and org_id = ${orgId}`;
    if (!item) throw AppError.notFound();
    const choice = mailChoices(item.form)?.[action.choice];
    if (!choice) return 'That answer is not one of this item’s choices: nothing changed.';
    const after = await actOnItem(deps, identity, orgId, action.itemId, {
      action: 'answer',
      values: choice.values,
      via: provider,
    });
    // Counted, and the item still collects approvals: say so (the message stays open).
    if (after.status === 'open' && after.approvals) {
      const { approved, required } = after.approvals;
      return `Your answer is recorded. It needs ${required} approvals: ${approved} so far.`;
    }
    return `Answered: ${choice.label}.`;
  } catch (error) {
    const message = refusal(error);
    if (!message) throw error;
    return message;
  }
}
