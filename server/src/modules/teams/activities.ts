import type { Deps } from '../../deps';
import { itemPageUrl } from '../../mail/item-mail';
import { actAsLinked, parseActionId } from '../chat/answer-as-linked';
import { decisionOf, loadItem } from '../chat/decision';
import { linkAccount } from '../chat/link-codes';
import { ANSWER_VERB, CARD_TYPE, itemCard, REFRESH_VERB } from './card';
import type { ConnectorClient } from './connector';

/** The parts of Bot Framework's activities Beckon reads. */
export type Activity = {
  type?: string;
  id?: string;
  name?: string;
  channelId?: string;
  serviceUrl?: string;
  text?: string;
  from?: { id?: string; name?: string };
  conversation?: { id?: string; conversationType?: string; name?: string };
  channelData?: { team?: { name?: string }; channel?: { name?: string } };
  value?: { action?: { verb?: string; data?: { action?: string; item?: string } } };
};

/** What the bot answers Bot Framework: an invoke's response, or nothing to say (200). */
export type InvokeReply = { statusCode: number; type: string; value: unknown } | Record<string, never>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A link code sent to the bot: `link <code>` or the code alone (a mention of the bot stripped). */
const LINK = /^(?:link\s+)?([A-Za-z0-9_-]{32})$/i;

/** A channel's conversation id without the thread a message was posted in (`;messageid=…`). */
export const conversationOf = (activity: Activity) => (activity.conversation?.id ?? '').split(';')[0] ?? '';

/** A message's text without mentions and markup. */
const plainText = (text: string | undefined) =>
  (text ?? '')
    .replace(/<at>.*?<\/at>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .trim();

/**
 * Remembers the conversation an activity came from, with its service URL (Bot Framework's word
 * on where the bot's messages to it go) and a name to show: a team's channel, a group chat, or a
 * person's chat with the bot (whose user is kept, to post items assigned to them there).
 */
export async function recordConversation(deps: Deps, orgId: string, activity: Activity) {
  const id = conversationOf(activity);
  const serviceUrl = activity.serviceUrl;
  if (!id || typeof serviceUrl !== 'string') return;
  const kind = activity.conversation?.conversationType ?? 'personal';
  const data = activity.channelData;
  const name =
    kind === 'channel'
      ? data?.team?.name && `${data.team.name} / ${data.channel?.name ?? 'General'}`
      : kind === 'personal'
        ? activity.from?.name && `Chat with ${activity.from.name}`
        : activity.conversation?.name;
  const personal = kind === 'personal' ? (activity.from?.id ?? null) : null;
  await deps.sql`
    insert into teams_conversations (org_id, conversation_id, service_url, kind, name, personal_user_id)
    values (${orgId}, ${id}, ${serviceUrl}, ${kind}, ${name || id}, ${personal})
    on conflict (org_id, conversation_id) do update set service_url = excluded.service_url,
      name = coalesce(${name || null}, teams_conversations.name),
      personal_user_id = coalesce(excluded.personal_user_id, teams_conversations.personal_user_id),
      last_seen_at = now()`;
}

/** The item's card as it is now, for an invoke's response (with a note for the person who acted). */
export async function currentCard(deps: Deps, orgId: string, itemId: string | undefined, note?: string) {
  const item = itemId && UUID.test(itemId) ? await loadItem(deps, orgId, itemId) : null;
  if (!item)
    return {
      statusCode: 200,
      type: 'application/vnd.microsoft.activity.message',
      value: 'This item no longer exists.',
    };
  const card = itemCard(item, itemPageUrl(deps.env, item.id), await decisionOf(deps, item), note);
  return { statusCode: 200, type: CARD_TYPE, value: card };
}

/** The item an invoke is about: the card's refresh names it, an answer's action id does. */
export const invokedItem = (activity: Activity) => {
  const data = activity.value?.action?.data;
  return data?.item ?? parseActionId(data?.action)?.itemId;
};

/**
 * One verified activity of an organization's bot: an `adaptiveCard/action` invoke answers the
 * item as the person the Teams user is linked to (verb `answer`) or shows the card as it is now
 * (verb `refresh`), answered with the card; a message with a link code links the Teams user, and
 * the bot replies in the conversation. Anything else (the bot added to a conversation, other
 * messages) is only remembered.
 */
export async function handleActivity(
  deps: Deps,
  client: ConnectorClient,
  orgId: string,
  activity: Activity,
): Promise<InvokeReply> {
  const userId = activity.from?.id;
  if (activity.type === 'invoke' && activity.name === 'adaptiveCard/action') {
    const action = activity.value?.action;
    if (action?.verb === REFRESH_VERB || !userId) return currentCard(deps, orgId, action?.data?.item);
    const parsed = action?.verb === ANSWER_VERB ? parseActionId(action.data?.action) : null;
    if (!parsed) return currentCard(deps, orgId, invokedItem(activity), 'This button does nothing any more.');
    const note = await actAsLinked(deps, 'teams', orgId, userId, parsed);
    return currentCard(deps, orgId, parsed.itemId, note);
  }
  const code = activity.type === 'message' && userId ? LINK.exec(plainText(activity.text))?.[1] : null;
  if (code && userId && activity.id && activity.serviceUrl) {
    const reply = await linkAccount(deps, 'teams', orgId, userId, code);
    await client
      .reply(activity.serviceUrl, activity.conversation?.id ?? '', activity.id, {
        type: 'message',
        text: reply,
      })
      .catch((error: unknown) => deps.log.warn({ err: error }, 'teams reply failed'));
  }
  return {};
}
