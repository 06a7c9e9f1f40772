import type { FastifyInstance } from 'fastify';
import type { Update } from 'grammy/types';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { firstDelivery, forgetDelivery } from '../chat/inbound-seen';
import { findConnection } from './connection.service';
import { requireTelegram, sameSecret, webhookSecret } from './telegram-config';
import { handleUpdate } from './updates';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * POST /webhooks/telegram/:org_id, where Telegram sends the updates of an organization's bot
 * (503 without Telegram configuration). Telegram signs nothing: it repeats the secret token
 * Beckon gave setWebhook in `X-Telegram-Bot-Api-Secret-Token`, derived from the organization and
 * its bot (telegram-config.ts), so a wrong or missing one is a 401 and nothing is read. An
 * update_id already handled (Telegram redelivers after an error; a replayed request) is
 * answered 200 and ignored.
 */
export function registerTelegramWebhooks(app: FastifyInstance, deps: Deps): void {
  app.post('/webhooks/telegram/:org_id', async (request, reply) => {
    const config = requireTelegram(deps);
    const orgId = (request.params as { org_id: string }).org_id;
    const connection = UUID.test(orgId) ? await findConnection(deps.sql, orgId) : null;
    const given = request.headers['x-telegram-bot-api-secret-token'];
    const expected = connection ? webhookSecret(config, orgId, connection.bot_id) : '';
    if (!connection || !sameSecret(expected, typeof given === 'string' ? given : undefined))
      throw AppError.of('invalid_signature', 'invalid secret token');
    const update = request.body as Update | null;
    if (typeof update?.update_id !== 'number')
      throw AppError.invalid({ update_id: 'must be the update of a Telegram bot' });
    if (!(await firstDelivery(deps.sql, 'telegram', orgId, String(update.update_id))))
      return reply.code(200).send({ ok: true, ignored: 'already handled' });
    try {
      await handleUpdate(deps, config, orgId, update);
    } catch (error) {
      // Not handled after all: Telegram's redelivery of it must run again.
      await forgetDelivery(deps.sql, 'telegram', orgId, String(update.update_id));
      throw error;
    }
    return { ok: true };
  });
}
