import type { EventKind } from '@beckon/contracts/items/event-kinds';
import type { JobHelpers } from 'graphile-worker';
import { uuidv7 } from 'uuidv7';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { JOB_TASKS } from '../../job-tasks';
import { answerSummary } from '../chat/decision';
import { reasonEvent } from '../chat/nudge';
import { closedBody } from '../items/changes/push-follow-ups';
import { findItem } from '../items/rows/item-queries';
import { type ItemRow, itemView } from '../items/rows/item-view';
import { TITLE_PREFIX } from '../push/push-entries';
import { type OrgTwilio, orgTwilio } from './connection.service';
import { itemText } from './item-text';
import { address } from './twilio-config';

type Channel = 'sms' | 'whatsapp';
const TWILIO_API = 'https://api.twilio.com';
type Call = { orgId: string; itemId: string; deliveryId: string; event: string; attempt: number };

/** The address a message is sent from on a channel, or null when the organization has none. */
const senderOf = (account: OrgTwilio, channel: Channel) =>
  channel === 'sms' ? account.connection.sms_from : account.connection.whatsapp_from;

/**
 * One message sent through Twilio as a delivery attempt (kind `sms` or `whatsapp` in GET
 * /api/deliveries), recorded with its duration and error. Twilio's refusal of the message (a
 * 4xx other than 429: a number it cannot reach, an unverified sender) ends the job; anything it
 * may get over (rate limit, network, its 5xx) is thrown so graphile-worker runs the job again.
 */
async function send(
  deps: Deps,
  account: OrgTwilio,
  call: Call,
  message: { channel: Channel; to: string; body: string },
): Promise<string | null> {
  const from = senderOf(account, message.channel);
  if (!from) return null;
  const started = performance.now();
  let sid: string | null = null;
  let error: string | null = null;
  let status: number | null = 201;
  let retry = false;
  try {
    sid = (
      await account.client.messages.create({
        from: address(message.channel, from),
        to: address(message.channel, message.to),
        body: message.body,
      })
    ).sid;
  } catch (caught) {
    const e = caught as { status?: number; code?: number; message?: string };
    status = e.status ?? null;
    error = e.code ? `${e.code}: ${e.message}` : (e.message ?? String(caught));
    retry = !status || status === 429 || status >= 500;
  }
  await deps.attempts.record({
    id: uuidv7(),
    org_id: call.orgId,
    delivery_id: call.deliveryId,
    kind: message.channel,
    webhook_id: null,
    item_id: call.itemId,
    event: call.event,
    url: `${deps.twilio?.apiUrl ?? TWILIO_API}/2010-04-01/Accounts/${account.connection.account_sid}/Messages.json`,
    attempt: call.attempt,
    status_code: status,
    error,
    duration_ms: Math.round(performance.now() - started),
  });
  if (error && retry) throw new Error(`twilio messages.create: ${error}`);
  return sid;
}

async function loadItem(deps: Deps, orgId: string, itemId: string) {
  return findItem(deps.sql, { orgId }, itemId).catch((error: unknown) => {
    if (error instanceof AppError && error.status === 404) return null; // deleted meanwhile
    throw error;
  });
}

const pageUrl = (deps: Deps, itemId: string) => `${deps.env.APP_URL}/items/${itemId}`;

type PhoneRow = { phone: string; channel: Channel };

/**
 * `twilio_send_item`: texts an item to one person's verified phone, once (a notification of it,
 * such as a reminder, texts it again with its reason first). The message record
 * (with the item's reference for this phone) is written first, under the item's row lock that
 * every change holds until it commits: a decision committed before it is seen here (nothing is
 * sent), one committed after finds the record (and tells the person). A send that failed for a
 * reason Twilio may get over is tried again; a record with Twilio's message id is never resent.
 */
export function sendItemTask(deps: Deps) {
  return async (payload: unknown, helpers: JobHelpers) => {
    const job = JOB_TASKS.twilio_send_item.parse(payload);
    const config = deps.twilio;
    const account = config && (await orgTwilio(deps, config, job.org_id));
    const row = account && (await loadItem(deps, job.org_id, job.item_id));
    if (!account || !row) return;
    const message = await deps.sql.begin(async (tx) => {
      const [item] = await tx<
        { status: string }[]
      >`select status from items where org_id = ${job.org_id} and id = ${row.id} for share`;
      const [phone] = await tx<PhoneRow[]>`
        select phone, channel from phone_numbers
         where org_id = ${job.org_id} and user_id = ${job.user_id}
           and verified_at is not null and opted_out_at is null`;
      if (item?.status !== 'open' || !phone) return null;
      const [existing] = await tx<{ ref: number; sid: string | null }[]>`
        select ref, sid from twilio_messages
         where org_id = ${job.org_id} and item_id = ${row.id} and user_id = ${job.user_id}`;
      // Sent already: a notification of it (a reminder, an escalation) sends it again, with its reason.
      if (existing) return existing.sid && job.reason === 'created' ? null : { ...phone, ref: existing.ref };
      const [next] = await tx<{ ref: number }[]>`
        update phone_numbers set next_ref = next_ref + 1
         where org_id = ${job.org_id} and user_id = ${job.user_id} returning next_ref - 1 as ref`;
      const ref = next?.ref ?? 1;
      await tx`
        insert into twilio_messages (item_id, org_id, user_id, phone, channel, ref)
        values (${row.id}, ${job.org_id}, ${job.user_id}, ${phone.phone}, ${phone.channel}, ${ref})`;
      return { ...phone, ref };
    });
    if (!message) return;
    const call = {
      orgId: job.org_id,
      itemId: row.id,
      deliveryId: job.delivery_id,
      event: reasonEvent(job.reason),
      attempt: helpers.job.attempts,
    };
    const body = `${TITLE_PREFIX[job.reason]}${itemText(itemView(row), message.ref, pageUrl(deps, row.id))}`;
    const sid = await send(deps, account, call, { channel: message.channel, to: message.phone, body });
    if (sid)
      await deps.sql`update twilio_messages set sid = ${sid}
                      where org_id = ${job.org_id} and item_id = ${row.id} and user_id = ${job.user_id}`;
  };
}

/** "Answered by Alice in Slack: Yes", or how else the item was closed. */
export function closingLine(row: ItemRow, event: EventKind) {
  const body = closedBody(row, event);
  if (!body) return null;
  const summary = row.status === 'answered' ? answerSummary(itemView(row)) : '';
  return summary ? `${body}: ${summary}` : body;
}

/**
 * `twilio_close_item`: an item that was texted was decided. A text cannot be edited, so each
 * person it was sent to gets a short one saying who decided and how (not the person who answered
 * by this very channel: the reply to their answer told them), once.
 */
export function closeItemTask(deps: Deps) {
  return async (payload: unknown, helpers: JobHelpers) => {
    const job = JOB_TASKS.twilio_close_item.parse(payload);
    const config = deps.twilio;
    const account = config && (await orgTwilio(deps, config, job.org_id));
    const row = account && (await loadItem(deps, job.org_id, job.item_id));
    if (!account || !row) return;
    const line = closingLine(row, job.event as EventKind);
    if (!line) return;
    const messages = await deps.sql<{ user_id: string; phone: string; channel: Channel; ref: number }[]>`
      select m.user_id, m.phone, m.channel, m.ref from twilio_messages m
        join phone_numbers p on p.org_id = m.org_id and p.user_id = m.user_id and p.phone = m.phone
       where m.item_id = ${row.id} and m.org_id = ${job.org_id} and not m.closed_notice
         and p.opted_out_at is null`;
    const call = {
      orgId: job.org_id,
      itemId: row.id,
      deliveryId: job.delivery_id,
      event: job.event,
      attempt: helpers.job.attempts,
    };
    for (const m of messages) {
      const answeredHere = row.answered_via === m.channel && row.answered_by_id === m.user_id;
      if (!answeredHere) {
        const body = `Beckon #${m.ref}: ${row.title}\n${line}. Replies to it change nothing.`;
        await send(deps, account, call, { channel: m.channel, to: m.phone, body });
      }
      await deps.sql`
        update twilio_messages set closed_notice = true
         where org_id = ${row.org_id} and item_id = ${row.id} and user_id = ${m.user_id}`;
    }
  };
}
