import type { JobHelpers } from 'graphile-worker';
import type { Deps } from '../../deps';
import { JOB_TASKS } from '../../job-tasks';
import { itemPageUrl } from '../../mail/item-mail';
import { decisionOf, loadItem } from '../chat/decision';
import { nudgeText, reasonEvent } from '../chat/nudge';
import { recordPostedMessage } from '../chat/posted-message';
import { type CallFailure, type CallRef, recordedCall } from '../chat/recorded-call';
import { orgApp } from './connection.service';
import { DiscordApiError, type DiscordClient } from './discord-rest';
import { discordMessage } from './message';

/**
 * Discord's refusals no retry changes (a channel the bot cannot see or write to, a message gone, a
 * revoked token: its 4xx) end the job; a rate limit (429), its 5xx and the network are tried again.
 */
function classify(error: unknown): CallFailure {
  if (error instanceof DiscordApiError) {
    const status = error.status;
    const permanent = status !== null && status !== 429 && status < 500;
    return { error: error.code ? `${error.code}: ${error.message}` : error.message, status, permanent };
  }
  return { error: error instanceof Error ? error.message : String(error), status: null, permanent: false };
}

/** A job's target naming a linked person (`user:<discord user id>`) rather than a channel. */
const PERSON = 'user:';

/**
 * The channel a post goes to: a routed channel as it is, a linked person's DM with the bot opened
 * first (POST /users/@me/channels, itself a recorded call); null when Discord refuses it.
 */
async function targetChannel(deps: Deps, client: DiscordClient, target: string, call: CallRef) {
  if (!target.startsWith(PERSON)) return target;
  const route = '/users/@me/channels';
  const dm = await recordedCall(
    deps,
    'discord',
    client.url(route),
    call,
    () => client.post<{ id: string }>(route, { recipient_id: target.slice(PERSON.length) }),
    classify,
  );
  return dm?.id ?? null;
}

/**
 * `discord_post_item`: posts an item to one Discord channel (or a linked person's DM) and
 * remembers the message, so later changes update it. Safe to run twice (a message already posted
 * there is not posted again). A change committed while the message was on its way is applied to
 * it at once. A notification of an item already there (a reminder, an escalation) replies to that
 * message with a nudge.
 */
export function postItemTask(deps: Deps) {
  return async (payload: unknown, helpers: JobHelpers) => {
    const job = JOB_TASKS.discord_post_item.parse(payload);
    const app = deps.discord && (await orgApp(deps, deps.discord, job.org_id));
    const item = app && (await loadItem(deps, job.org_id, job.item_id));
    if (!app || !item) return;
    const call: CallRef = {
      orgId: job.org_id,
      itemId: item.id,
      deliveryId: job.delivery_id,
      event: reasonEvent(job.reason),
      attempt: helpers.job.attempts,
    };
    const channelId = await targetChannel(deps, app.client, job.discord_channel_id, call);
    if (!channelId) return;
    const [posted] = await deps.sql<{ message_id: string }[]>`
      select message_id from discord_messages
       where org_id = ${job.org_id} and item_id = ${item.id} and discord_channel_id = ${channelId}`;
    if (posted) {
      if (job.reason === 'created' || item.status !== 'open') return;
      const nudge = {
        content: nudgeText(job.reason, item.title),
        message_reference: { message_id: posted.message_id },
        allowed_mentions: { parse: [] },
      };
      const route = `/channels/${channelId}/messages`;
      await recordedCall(
        deps,
        'discord',
        app.client.url(route),
        call,
        () => app.client.post(route, nudge),
        classify,
      );
      return;
    }
    const message = discordMessage(item, itemPageUrl(deps.env, item.id), await decisionOf(deps, item));
    const route = `/channels/${channelId}/messages`;
    const sent = await recordedCall(
      deps,
      'discord',
      app.client.url(route),
      call,
      () => app.client.post<{ id: string }>(route, message),
      classify,
    );
    if (!sent) return;
    await recordPostedMessage(
      deps,
      item,
      job.org_id,
      'discord_update_item',
      (tx) => tx`
        insert into discord_messages (item_id, org_id, discord_channel_id, message_id)
        values (${item.id}, ${job.org_id}, ${channelId}, ${sent.id})
        on conflict do nothing`,
    );
  };
}

/** `discord_update_item`: renders the item as it is now into each of its Discord messages. */
export function updateItemTask(deps: Deps) {
  return async (payload: unknown, helpers: JobHelpers) => {
    const job = JOB_TASKS.discord_update_item.parse(payload);
    const app = deps.discord && (await orgApp(deps, deps.discord, job.org_id));
    const item = app && (await loadItem(deps, job.org_id, job.item_id));
    if (!app || !item) return;
    const messages = await deps.sql<{ discord_channel_id: string; message_id: string }[]>`
      select discord_channel_id, message_id from discord_messages where item_id = ${item.id} and org_id = ${job.org_id}`;
    const message = discordMessage(item, itemPageUrl(deps.env, item.id), await decisionOf(deps, item));
    const call: CallRef = {
      orgId: job.org_id,
      itemId: item.id,
      deliveryId: job.delivery_id,
      event: job.event,
      attempt: helpers.job.attempts,
    };
    for (const m of messages) {
      const route = `/channels/${m.discord_channel_id}/messages/${m.message_id}`;
      await recordedCall(
        deps,
        'discord',
        app.client.url(route),
        call,
        () => app.client.patch(route, message),
        classify,
      );
    }
  };
}
