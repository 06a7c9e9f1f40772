import type { JobHelpers } from 'graphile-worker';
import type { Deps } from '../../deps';
import { JOB_TASKS } from '../../job-tasks';
import { itemPageUrl } from '../../mail/item-mail';
import { decisionOf, loadItem } from '../chat/decision';
import { nudgeText, reasonEvent } from '../chat/nudge';
import { recordPostedMessage } from '../chat/posted-message';
import { type CallFailure, type CallRef, recordedCall } from '../chat/recorded-call';
import { cardActivity, itemCard } from './card';
import { orgBot } from './connection.service';
import { activitiesUrl, TeamsApiError } from './connector';

/**
 * The Bot Connector's refusals no retry changes (a conversation the bot was removed from, an
 * activity gone, a secret Entra no longer accepts: its 4xx) end the job; a rate limit (429), its
 * 5xx and the network are tried again.
 */
function classify(error: unknown): CallFailure {
  if (error instanceof TeamsApiError) {
    const status = error.status;
    return { error: error.message, status, permanent: status !== null && status !== 429 && status < 500 };
  }
  return { error: error instanceof Error ? error.message : String(error), status: null, permanent: false };
}

/** The item's card as it is now, as an activity. */
const renderCard = async (deps: Deps, item: NonNullable<Awaited<ReturnType<typeof loadItem>>>) =>
  cardActivity(itemCard(item, itemPageUrl(deps.env, item.id), await decisionOf(deps, item)));

/**
 * `teams_post_item`: posts an item's card to one Teams conversation (a routed channel or chat,
 * or a person's chat with the bot), at the service URL Bot Framework named for it, and remembers
 * the activity, so later changes update it. Safe to run twice (a card already posted there is not
 * posted again). A change committed while the card was on its way is applied to it at once. A
 * notification of an item already there (a reminder, an escalation) replies to its card with a nudge.
 */
export function postItemTask(deps: Deps) {
  return async (payload: unknown, helpers: JobHelpers) => {
    const job = JOB_TASKS.teams_post_item.parse(payload);
    const bot = deps.teams && (await orgBot(deps, deps.teams, job.org_id));
    const item = bot && (await loadItem(deps, job.org_id, job.item_id));
    if (!bot || !item) return;
    const [conversation] = await deps.sql<{ service_url: string }[]>`
      select service_url from teams_conversations
       where org_id = ${job.org_id} and conversation_id = ${job.conversation_id}`;
    if (!conversation) return;
    const call: CallRef = {
      orgId: job.org_id,
      itemId: item.id,
      deliveryId: job.delivery_id,
      event: reasonEvent(job.reason),
      attempt: helpers.job.attempts,
    };
    const [posted] = await deps.sql<{ activity_id: string }[]>`
      select activity_id from teams_messages
       where org_id = ${job.org_id} and item_id = ${item.id} and conversation_id = ${job.conversation_id}`;
    if (posted) {
      if (job.reason === 'created' || item.status !== 'open') return;
      const nudge = { type: 'message', text: nudgeText(job.reason, item.title) };
      const url = activitiesUrl(conversation.service_url, job.conversation_id, posted.activity_id);
      await recordedCall(
        deps,
        'teams',
        url,
        call,
        () => bot.client.reply(conversation.service_url, job.conversation_id, posted.activity_id, nudge),
        classify,
      );
      return;
    }
    const activity = await renderCard(deps, item);
    const sent = await recordedCall(
      deps,
      'teams',
      activitiesUrl(conversation.service_url, job.conversation_id),
      call,
      () => bot.client.send(conversation.service_url, job.conversation_id, activity),
      classify,
    );
    if (!sent?.id) return;
    const activityId = sent.id;
    await recordPostedMessage(
      deps,
      item,
      job.org_id,
      'teams_update_item',
      (tx) => tx`
        insert into teams_messages (item_id, org_id, conversation_id, activity_id)
        values (${item.id}, ${job.org_id}, ${job.conversation_id}, ${activityId})
        on conflict do nothing`,
    );
  };
}

/** `teams_update_item`: puts the item's card as it is now in place of each of its Teams cards. */
export function updateItemTask(deps: Deps) {
  return async (payload: unknown, helpers: JobHelpers) => {
    const job = JOB_TASKS.teams_update_item.parse(payload);
    const bot = deps.teams && (await orgBot(deps, deps.teams, job.org_id));
    const item = bot && (await loadItem(deps, job.org_id, job.item_id));
    if (!bot || !item) return;
    const cards = await deps.sql<{ conversation_id: string; activity_id: string; service_url: string }[]>`
      select m.conversation_id, m.activity_id, c.service_url
        from teams_messages m
        join teams_conversations c on c.org_id = m.org_id and c.conversation_id = m.conversation_id
       where m.item_id = ${item.id} and m.org_id = ${job.org_id}`;
    const activity = await renderCard(deps, item);
    const call: CallRef = {
      orgId: job.org_id,
      itemId: item.id,
      deliveryId: job.delivery_id,
      event: job.event,
      attempt: helpers.job.attempts,
    };
    for (const card of cards) {
      await recordedCall(
        deps,
        'teams',
        activitiesUrl(card.service_url, card.conversation_id, card.activity_id),
        call,
        () => bot.client.update(card.service_url, card.conversation_id, card.activity_id, activity),
        classify,
      );
    }
  };
}
