import type { Deps } from '../../deps';
import { actAsLinked, parseActionId } from '../chat/answer-as-linked';
import { linkAccount } from '../chat/link-codes';
import { LINK_COMMAND } from './connection.service';
import { SELECT_PREFIX } from './message';

/** The parts of Discord's interactions Beckon reads. */
export type Interaction = {
  id?: string;
  type?: number;
  data?: {
    name?: string;
    custom_id?: string;
    values?: string[];
    options?: { name?: string; value?: unknown }[];
  };
  member?: { user?: { id?: string } };
  user?: { id?: string };
};

const PING = 1;
const APPLICATION_COMMAND = 2;
const MESSAGE_COMPONENT = 3;
/** Discord's interaction callback types, and the flag of a reply only its reader sees. */
export const PONG = { type: 1 };
const CHANNEL_MESSAGE = 4;
const EPHEMERAL = 64;

const ephemeral = (content: string) => ({
  type: CHANNEL_MESSAGE,
  data: { content: content.slice(0, 2000), flags: EPHEMERAL, allowed_mentions: { parse: [] } },
});

export const isPing = (interaction: Interaction) => interaction.type === PING;

/**
 * One verified interaction of an organization's application: a click on a message's button or
 * menu answers the item as the person the Discord user is linked to; `/beckon-link code:<code>`
 * links the Discord user. The reply is only for the person who acted; the message itself is
 * updated by the item's follow-up job, as after an answer anywhere else.
 */
export async function handleInteraction(deps: Deps, orgId: string, interaction: Interaction) {
  const userId = interaction.member?.user?.id ?? interaction.user?.id;
  if (!userId) return ephemeral('Nothing to do.');
  const data = interaction.data;
  if (interaction.type === APPLICATION_COMMAND && data?.name === LINK_COMMAND) {
    const code = data.options?.find((o) => o.name === 'code')?.value;
    if (typeof code !== 'string') return ephemeral('Send the code from Beckon with the command.');
    return ephemeral(await linkAccount(deps, 'discord', orgId, userId, code.trim()));
  }
  if (interaction.type !== MESSAGE_COMPONENT) return ephemeral('Nothing to do.');
  const id = data?.custom_id?.startsWith(SELECT_PREFIX) ? data.values?.[0] : data?.custom_id;
  const action = parseActionId(id);
  if (!action) return ephemeral('This button does nothing any more.');
  return ephemeral(await actAsLinked(deps, 'discord', orgId, userId, action));
}
