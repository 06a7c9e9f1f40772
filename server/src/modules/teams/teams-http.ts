import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { firstDelivery, forgetDelivery } from '../chat/inbound-seen';
import { type Activity, currentCard, handleActivity, invokedItem, recordConversation } from './activities';
import { verifyActivityToken } from './activity-token';
import { orgBot } from './connection.service';
import { requireTeams } from './teams-config';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * POST /webhooks/teams/:org_id, the messaging endpoint of an organization's bot (503 without
 * Teams configuration). Every activity must carry Bot Framework's JWT (activity-token.ts): a
 * missing, forged, foreign (another bot's audience), expired one, or one naming another service
 * URL, is a 401 and nothing is read. An activity id already handled (a replayed request) changes
 * nothing: an invoke is answered with the card as it is now.
 */
export function registerTeamsWebhooks(app: FastifyInstance, deps: Deps): void {
  app.post('/webhooks/teams/:org_id', async (request) => {
    const config = requireTeams(deps);
    const orgId = (request.params as { org_id: string }).org_id;
    const bot = UUID.test(orgId) ? await orgBot(deps, config, orgId) : null;
    const activity = (request.body ?? {}) as Activity;
    const verdict = bot
      ? await verifyActivityToken(
          config,
          request.headers.authorization,
          { appId: bot.connection.app_id, serviceUrl: activity.serviceUrl, channelId: activity.channelId },
          deps.clock(),
        )
      : 'invalid';
    if (verdict === 'stale') throw AppError.of('invalid_signature', 'the Bot Framework token has expired');
    if (verdict !== 'ok' || !bot) throw AppError.of('invalid_signature', 'invalid Bot Framework token');
    await recordConversation(deps, orgId, activity);
    const id = typeof activity.id === 'string' ? activity.id : '';
    if (!id || !(await firstDelivery(deps.sql, 'teams', orgId, id)))
      return activity.type === 'invoke' ? currentCard(deps, orgId, invokedItem(activity)) : {};
    try {
      return await handleActivity(deps, bot.client, orgId, activity);
    } catch (error) {
      await forgetDelivery(deps.sql, 'teams', orgId, id);
      throw error;
    }
  });
}
