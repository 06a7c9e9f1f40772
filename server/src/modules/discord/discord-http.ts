import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { firstDelivery, forgetDelivery } from '../chat/inbound-seen';
import { findConnection } from './connection.service';
import { requireDiscord } from './discord-config';
import { verifyInteraction } from './interaction-signature';
import { handleInteraction, type Interaction, isPing, PONG } from './interactions';

/** Discord's interactions are small; the signature covers the exact bytes. */
const MAX_INTERACTION_BYTES = 64 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * POST /webhooks/discord/:org_id, the Interactions Endpoint URL of an organization's application
 * (503 without Discord configuration): every request must carry the application's Ed25519
 * signature of its timestamp and raw body, with a timestamp within five minutes (401 otherwise,
 * as Discord requires: it sends bad signatures on purpose to check). A PING is answered with a
 * PONG; an interaction id already handled (a replayed request) is refused with an ephemeral
 * reply, and nothing happens twice.
 */
export function registerDiscordWebhooks(app: FastifyInstance, deps: Deps): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: MAX_INTERACTION_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.post('/webhooks/discord/:org_id', async (request) => {
      requireDiscord(deps);
      const orgId = (request.params as { org_id: string }).org_id;
      const connection = UUID.test(orgId) ? await findConnection(deps.sql, orgId) : null;
      const raw = typeof request.body === 'string' ? request.body : '';
      const headers = {
        signature: request.headers['x-signature-ed25519'],
        timestamp: request.headers['x-signature-timestamp'],
      };
      const verdict = connection
        ? verifyInteraction(connection.public_key, headers, raw, deps.clock())
        : 'invalid';
      if (verdict === 'stale')
        throw AppError.of('invalid_signature', 'request timestamp outside the replay window');
      if (verdict !== 'ok') throw AppError.of('invalid_signature', 'invalid request signature');
      let interaction: Interaction;
      try {
        interaction = JSON.parse(raw) as Interaction;
      } catch {
        throw AppError.invalid({ body: 'must be the JSON of an interaction' });
      }
      if (isPing(interaction)) return PONG;
      const id = typeof interaction.id === 'string' ? interaction.id : '';
      if (!id || !(await firstDelivery(deps.sql, 'discord', orgId, id)))
        return { type: 4, data: { content: 'Already handled.', flags: 64 } };
      try {
        return await handleInteraction(deps, orgId, interaction);
      } catch (error) {
        await forgetDelivery(deps.sql, 'discord', orgId, id);
        throw error;
      }
    });
  });
}
