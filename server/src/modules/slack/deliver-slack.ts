import { ErrorCode, type WebClient } from '@slack/web-api';
import type { JobHelpers } from 'graphile-worker';
import { uuidv7 } from 'uuidv7';
import type { Deps } from '../../deps';
import { JOB_TASKS } from '../../job-tasks';
import { itemPageUrl } from '../../mail/item-mail';
import { decisionOf as decision, loadItem } from '../chat/decision';
import { nudgeText, reasonEvent } from '../chat/nudge';
import { recordPostedMessage } from '../chat/posted-message';
import { orgBot } from './connection.service';
import { escapeText, itemMessage } from './message-blocks';

/** Slack's answers that no retry changes: recorded, and the job ends. */
const PERMANENT = new Set([
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'message_not_found',
  'cant_update_message',
  'invalid_blocks',
  'msg_too_long',
]);

type Call = { orgId: string; itemId: string; deliveryId: string; event: string; attempt: number };

/**
 * One Slack API call as a delivery attempt (kind `slack` in GET /api/deliveries): recorded with
 * its duration and error. A failure Slack may get over (rate limit, network, its 5xx) is thrown
 * so graphile-worker runs the job again; a permanent one ends it.
 */
async function attempt<T>(deps: Deps, client: WebClient, method: string, call: Call, run: () => Promise<T>) {
  const started = performance.now();
  let error: string | null = null;
  let status: number | null = 200;
  let result: T | null = null;
  let retry = false;
  try {
    result = await run();
  } catch (caught) {
    const e = caught as { code?: string; message?: string; statusCode?: number; data?: { error?: string } };
    error = e.data?.error ?? e.message ?? String(caught);
    status =
      e.code === ErrorCode.HTTPError
        ? (e.statusCode ?? null)
        : e.code === ErrorCode.PlatformError
          ? 200
          : null;
    retry = !(e.code === ErrorCode.PlatformError && PERMANENT.has(e.data?.error ?? ''));
  }
  await deps.attempts.record({
    id: uuidv7(),
    org_id: call.orgId,
    delivery_id: call.deliveryId,
    kind: 'slack',
    webhook_id: null,
    item_id: call.itemId,
    event: call.event,
    url: `${client.slackApiUrl}${method}`,
    attempt: call.attempt,
    status_code: status,
    error,
    duration_ms: Math.round(performance.now() - started),
  });
  if (error && retry) throw new Error(`slack ${method}: ${error}`);
  return result;
}

/**
 * `slack_post_item`: posts an item to one Slack channel (or a person's DM, by their user id) and
 * remembers the message, so later changes update it. Safe to run twice (a message already posted
 * there is not posted again). A change committed while the message was on its way is applied to
 * it at once. A notification of an item already there (a reminder, an escalation) answers that
 * message in its thread, shown in the conversation too, with a nudge.
 */
export function postItemTask(deps: Deps) {
  return async (payload: unknown, helpers: JobHelpers) => {
    const job = JOB_TASKS.slack_post_item.parse(payload);
    const config = deps.slack;
    const bot = config && (await orgBot(deps, config, job.org_id));
    const item = bot && (await loadItem(deps, job.org_id, job.item_id));
    if (!bot || !item) return;
    const [posted] = await deps.sql<{ slack_channel_id: string; ts: string }[]>`
      select slack_channel_id, ts from slack_messages
       where org_id = ${job.org_id} and item_id = ${item.id}
         and (slack_channel_id = ${job.slack_channel_id} or posted_to = ${job.slack_channel_id})`;
    const call = {
      orgId: job.org_id,
      itemId: item.id,
      deliveryId: job.delivery_id,
      event: reasonEvent(job.reason),
      attempt: helpers.job.attempts,
    };
    if (posted) {
      if (job.reason === 'created' || item.status !== 'open') return;
      const text = escapeText(nudgeText(job.reason, item.title));
      await attempt(deps, bot.client, 'chat.postMessage', call, () =>
        bot.client.chat.postMessage({
          channel: posted.slack_channel_id,
          thread_ts: posted.ts,
          reply_broadcast: true,
          text,
        }),
      );
      return;
    }
    const message = itemMessage(item, itemPageUrl(deps.env, item.id), await decision(deps, item));
    const answer = await attempt(deps, bot.client, 'chat.postMessage', call, () =>
      bot.client.chat.postMessage({ channel: job.slack_channel_id, ...message }),
    );
    const ts = answer?.ts;
    if (!ts) return;
    const channel = answer?.channel ?? job.slack_channel_id;
    await recordPostedMessage(
      deps,
      item,
      job.org_id,
      'slack_update_item',
      (tx) => tx`
        insert into slack_messages (item_id, org_id, slack_channel_id, posted_to, ts)
        values (${item.id}, ${job.org_id}, ${channel}, ${job.slack_channel_id}, ${ts})
        on conflict do nothing`,
    );
  };
}

/** `slack_update_item`: renders the item as it is now into each of its Slack messages. */
export function updateItemTask(deps: Deps) {
  return async (payload: unknown, helpers: JobHelpers) => {
    const job = JOB_TASKS.slack_update_item.parse(payload);
    const config = deps.slack;
    const bot = config && (await orgBot(deps, config, job.org_id));
    const item = bot && (await loadItem(deps, job.org_id, job.item_id));
    if (!bot || !item) return;
    const messages = await deps.sql<{ slack_channel_id: string; ts: string }[]>`
      select slack_channel_id, ts from slack_messages where item_id = ${item.id} and org_id = ${job.org_id}`;
    const message = itemMessage(item, itemPageUrl(deps.env, item.id), await decision(deps, item));
    const call = {
      orgId: job.org_id,
      itemId: item.id,
      deliveryId: job.delivery_id,
      event: job.event,
      attempt: helpers.job.attempts,
    };
    for (const m of messages) {
      await attempt(deps, bot.client, 'chat.update', call, () =>
        bot.client.chat.update({ channel: m.slack_channel_id, ts: m.ts, ...message }),
      );
    }
  };
}
