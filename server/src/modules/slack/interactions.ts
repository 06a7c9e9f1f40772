import { can } from '@beckon/contracts/permissions';
import type { WebClient } from '@slack/web-api';
import type { Identity } from '../../auth/identity';
import { memberIdentity } from '../../auth/member-identity';
import { reauthRequired } from '../../auth/verification';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { itemPageUrl } from '../../mail/item-mail';
import { refusal } from '../chat/answer-refusal';
import { actOnItem } from '../items/operations/act-on-item';
import { getItem } from '../items/operations/read-items';
import { orgBot } from './connection.service';
import { linkPageUrl } from './links.service';
import { ACTIONS } from './message-blocks';
import { formModal, modalValues } from './modal';
import type { SlackConfig } from './slack-config';

/** The parts of Slack's interaction payloads Beckon reads. */
export type InteractionPayload = {
  type?: string;
  team?: { id?: string } | null;
  user?: { id?: string; team_id?: string };
  channel?: { id?: string };
  trigger_id?: string;
  actions?: { action_id?: string; value?: string }[];
  view?: {
    callback_id?: string;
    private_metadata?: string;
    state?: { values?: Record<string, Record<string, never>> };
  };
};

/** What the interaction route answers Slack (an empty 200, or a modal's field errors). */
export type InteractionReply = Record<string, unknown> | null;

type Acting = {
  orgId: string;
  teamId: string;
  client: WebClient;
  slackUser: string;
  channel: string | undefined;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The organization an interaction concerns: the item's, and only when that organization's
 * connected workspace is the one the click came from (one organization's Slack never reaches
 * another's items). Null for anything else.
 */
async function actingFor(deps: Deps, config: SlackConfig, payload: InteractionPayload, itemId: string) {
  const teamId = payload.team?.id ?? payload.user?.team_id;
  const slackUser = payload.user?.id;
  if (!UUID.test(itemId) || !teamId || !slackUser) return null;
  const [item] = await deps.sql<{ org_id: string }[]>`select org_id from items where id = ${itemId}`;
  const bot = item ? await orgBot(deps, config, item.org_id) : null;
  if (!bot || !item || bot.connection.team_id !== teamId) return null;
  return {
    orgId: item.org_id,
    teamId,
    client: bot.client,
    slackUser,
    channel: payload.channel?.id,
  } satisfies Acting;
}

/** The Beckon member a Slack user is linked to, as an identity with their current role. */
async function linkedIdentity(deps: Deps, acting: Acting): Promise<Identity | 'unlinked' | 'not_member'> {
  const [link] = await deps.sql<{ user_id: string }[]>`
    select user_id from slack_user_links where org_id = ${acting.orgId} and slack_user_id = ${acting.slackUser}`;
  if (!link) return 'unlinked';
  const person = { orgId: acting.orgId, userId: link.user_id };
  return (await memberIdentity(deps.sql, person, 'slack_link', `slack:${acting.slackUser}`)) ?? 'not_member';
}

async function tell(deps: Deps, acting: Acting, text: string) {
  if (!acting.channel) return;
  await acting.client.chat
    .postEphemeral({ channel: acting.channel, user: acting.slackUser, text })
    .catch((error: unknown) => deps.log.warn({ err: error }, 'slack ephemeral message failed'));
}

/** The person behind the click, or null after telling them why they cannot act (link, membership). */
async function personFor(deps: Deps, acting: Acting): Promise<Identity | null> {
  const identity = await linkedIdentity(deps, acting);
  if (identity === 'unlinked') {
    const url = linkPageUrl(deps);
    await tell(
      deps,
      acting,
      `To answer from Slack, link your Beckon account once: <${url}|link your account>`,
    );
    return null;
  }
  if (identity === 'not_member') {
    await tell(deps, acting, 'Your linked Beckon account is no longer a member of this organization.');
    return null;
  }
  if (!can(identity.permissions, 'items.write')) {
    await tell(deps, acting, 'Your Beckon role may not answer items.');
    return null;
  }
  return identity;
}

async function act(
  deps: Deps,
  config: SlackConfig,
  payload: InteractionPayload,
  itemId: string,
  run: (identity: Identity, acting: Acting) => Promise<unknown>,
) {
  const acting = await actingFor(deps, config, payload, itemId);
  if (!acting) return;
  const identity = await personFor(deps, acting);
  if (!identity) return;
  try {
    await run(identity, acting);
  } catch (error) {
    const message = refusal(error);
    if (!message) throw error;
    await tell(deps, acting, message);
  }
}

/** A click on a message's button. */
async function blockAction(deps: Deps, config: SlackConfig, payload: InteractionPayload) {
  const action = payload.actions?.[0];
  const id = action?.action_id ?? '';
  if (id.startsWith(`${ACTIONS.answer}.`)) {
    const value = parseJson(action?.value) as { item?: unknown; values?: unknown } | null;
    if (typeof value?.item !== 'string') return;
    const values = value.values;
    const itemId = value.item;
    await act(deps, config, payload, itemId, async (identity, acting) => {
      const after = await actOnItem(deps, identity, acting.orgId, itemId, {
        action: 'answer',
        values,
        via: 'slack',
      });
      // Counted, and the item still collects approvals: say so (the message stays open).
      if (after.status === 'open' && after.approvals) {
        const { approved, required } = after.approvals;
        await tell(
          deps,
          acting,
          `Your answer is recorded. It needs ${required} approvals: ${approved} so far.`,
        );
      }
    });
  } else if (id === ACTIONS.ack && action?.value) {
    const itemId = action.value;
    await act(deps, config, payload, itemId, (identity, acting) =>
      actOnItem(deps, identity, acting.orgId, itemId, { action: 'ack', via: 'slack' }),
    );
  } else if (id === ACTIONS.open && action?.value && payload.trigger_id) {
    const itemId = action.value;
    const triggerId = payload.trigger_id;
    await act(deps, config, payload, itemId, async (identity, acting) => {
      const item = await getItem(deps, identity, itemId);
      if (item.status !== 'open')
        throw AppError.conflict('invalid_status', 'not open', { status: item.status });
      if (item.require_reauth) throw reauthRequired(item.require_reauth, itemPageUrl(deps.env, item.id));
      await acting.client.views.open({ trigger_id: triggerId, view: formModal(item) });
    });
  }
}

/** A submitted modal: answered, or its fields' errors shown in it. */
async function viewSubmission(
  deps: Deps,
  config: SlackConfig,
  payload: InteractionPayload,
): Promise<InteractionReply> {
  const itemId = payload.view?.private_metadata ?? '';
  if (payload.view?.callback_id !== ACTIONS.modal) return null;
  const acting = await actingFor(deps, config, payload, itemId);
  if (!acting) return null;
  const identity = await personFor(deps, acting);
  if (!identity) return null;
  try {
    const item = await getItem(deps, identity, itemId);
    const values = modalValues(item, payload.view?.state?.values ?? {});
    await actOnItem(deps, identity, acting.orgId, itemId, { action: 'answer', values, via: 'slack' });
    return null;
  } catch (error) {
    if (error instanceof AppError && error.status === 422) {
      return { response_action: 'errors', errors: (error.body.fields ?? {}) as Record<string, string> };
    }
    const message = refusal(error);
    if (!message) throw error;
    const first = Object.keys(payload.view?.state?.values ?? {})[0] ?? 'value';
    return { response_action: 'errors', errors: { [first]: message } };
  }
}

/** Dispatches one verified interaction. */
export async function handleInteraction(
  deps: Deps,
  config: SlackConfig,
  payload: InteractionPayload,
): Promise<InteractionReply> {
  if (payload.type === 'block_actions') {
    await blockAction(deps, config, payload);
    return null;
  }
  if (payload.type === 'view_submission') return viewSubmission(deps, config, payload);
  return null;
}

function parseJson(text: string | undefined): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
