import type { EventKind } from '@beckon/contracts/items/event-kinds';
import { can } from '@beckon/contracts/permissions';
import { memberIdentity } from '../../auth/member-identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { actOnItem } from '../items/operations/act-on-item';
import { findItem } from '../items/rows/item-queries';
import { closingLine } from './deliver-twilio';
import { keyword, matchChoice, menuAgain, normalize, splitReply, textChoices } from './item-text';

/** The fields of Twilio's incoming-message request Beckon reads. */
export type InboundMessage = { from: string; body: string };

type Person = { user_id: string; phone: string; opted_out_at: Date | null };
type Sent = { item_id: string; ref: number };

const CLOSED_EVENT: Record<string, EventKind> = {
  answered: 'item.answered',
  dismissed: 'item.dismissed',
  expired: 'item.expired',
  withdrawn: 'item.withdrawn',
  archived: 'item.archived',
};

/** `whatsapp:+1555…` or `+1555…`: the channel and the number. */
export const senderOf = (from: string) =>
  from.startsWith('whatsapp:')
    ? { channel: 'whatsapp' as const, phone: from.slice('whatsapp:'.length) }
    : { channel: 'sms' as const, phone: from };

/** The texts sent to this person, newest first, with whether their item still waits (an acknowledged one without a form does not). */
const sentTo = (deps: Deps, orgId: string, person: Person) =>
  deps.sql<(Sent & { open: boolean })[]>`
    select m.item_id, m.ref, i.status = 'open' and (i.form is not null or i.acked_at is null) as open
      from twilio_messages m join items i on i.org_id = m.org_id and i.id = m.item_id
     where m.org_id = ${orgId} and m.user_id = ${person.user_id}
     order by m.created_at desc, m.ref desc limit 50`;

/**
 * Which sent item a reply is for, and what it answers: the newest open item when the whole reply
 * is one of its choices (a label may start with a number); else `#3 yes` / `3 yes` name the item
 * sent as #3; else the newest open item. Null with what to tell the person when there is none.
 */
async function target(deps: Deps, orgId: string, person: Person, body: string) {
  const sent = await sentTo(deps, orgId, person);
  const latestOpen = sent.find((m) => m.open);
  if (latestOpen) {
    const item = await findItem(deps.sql, { orgId }, latestOpen.item_id);
    const choices = textChoices(item);
    if (choices?.some((c) => normalize(c.label) === normalize(body)))
      return { sent: latestOpen, answer: body };
  }
  const { ref, answer } = splitReply(body);
  if (ref !== null) {
    const named = sent.find((m) => m.ref === ref);
    return named ? { sent: named, answer } : { tell: `No Beckon item #${ref} was sent to you.` };
  }
  if (latestOpen) return { sent: latestOpen, answer };
  const latest = sent[0];
  return latest ? { sent: latest, answer } : { tell: 'Nothing from Beckon is waiting for your answer.' };
}

/** Why an answer was refused, in words for the person (null: not a refusal of ours). */
function refusal(error: unknown): string | null {
  if (!(error instanceof AppError)) return null;
  if (error.status === 403 || (error.status === 409 && error.body.status === 'open'))
    return `${String(error.body.error)}: nothing changed.`.replace(/^./, (c) => c.toUpperCase());
  if (error.status === 409) return `It was already decided (${String(error.body.status)}): nothing changed.`;
  if (error.status === 404) return 'It no longer exists.';
  if (error.status === 422) return 'That answer was not accepted.';
  return null;
}

/**
 * A message a person sent to the organization's number, verified as Twilio's: STOP and START
 * words first, then the answer to one of the items texted to them, as that person (their current
 * role), through the same operation as the API (`answered_via: "sms"` or `"whatsapp"`). Answers
 * the text to reply with, or null for none.
 */
export async function handleInbound(
  deps: Deps,
  orgId: string,
  message: InboundMessage,
): Promise<string | null> {
  const { channel, phone } = senderOf(message.from);
  const [person] = await deps.sql<Person[]>`
    select user_id, phone, opted_out_at from phone_numbers
     where org_id = ${orgId} and phone = ${phone} and verified_at is not null`;
  if (!person) return 'This number is not verified in Beckon: add it in your Beckon settings first.';
  const word = keyword(message.body);
  if (word) {
    await deps.sql`
      update phone_numbers set opted_out_at = ${word === 'opt_out' ? new Date() : null}, updated_at = now()
       where org_id = ${orgId} and user_id = ${person.user_id}`;
    return word === 'opt_out'
      ? 'Beckon will send you nothing more here. Reply START to get items again.'
      : 'Beckon will send you items here again. Reply STOP to stop.';
  }
  const found = await target(deps, orgId, person, message.body);
  if ('tell' in found) return found.tell ?? null;
  const row = await findItem(deps.sql, { orgId }, found.sent.item_id);
  const head = `Beckon #${found.sent.ref}: ${row.title}`;
  if (row.status !== 'open') {
    const line = closingLine(row, CLOSED_EVENT[row.status] ?? 'item.updated') ?? `It is ${row.status}`;
    return `${head}\n${line}. Your reply changed nothing.`;
  }
  const choices = textChoices(row);
  if (!choices) return `${head}\nAnswer it on its page: ${deps.env.APP_URL}/items/${row.id}`;
  const choice = matchChoice(found.answer, choices, row.form);
  if (!choice) return menuAgain(found.sent.ref, row.title, choices);
  const identity = await memberIdentity(
    deps.sql,
    { orgId, userId: person.user_id },
    'phone_link',
    `phone:${phone}`,
  );
  if (!identity) return 'Your Beckon account is no longer a member of this organization.';
  if (!can(identity.permissions, 'items.write')) return 'Your Beckon role may not answer items.';
  try {
    const after = await actOnItem(deps, identity, orgId, row.id, { ...choice.answer, via: channel });
    if (after.status === 'open' && after.approvals) {
      const { approved, required } = after.approvals;
      return `${head}\nYour answer "${choice.label}" is recorded. It needs ${required} approvals: ${approved} so far.`;
    }
    return `${head}\nRecorded: ${choice.label}. Thank you.`;
  } catch (error) {
    const message = refusal(error);
    if (!message) throw error;
    return `${head}\n${message}`;
  }
}
