import type {
  ConnectTelegramInput,
  TelegramConnectionView,
} from '@beckon/contracts/telegram/telegram.contract';
import type { Queryable } from '@beckon/db';
import { GrammyError } from 'grammy';
import type { Identity } from '../../auth/identity';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { enforcePlanLimit } from '../billing/plan-gate';
import { seal, unseal } from '../chat/secret-box';
import {
  requireTelegram,
  type TelegramConfig,
  telegramApi,
  webhookSecret,
  webhookUrl,
} from './telegram-config';

type ConnectionRow = {
  org_id: string;
  bot_id: string;
  bot_username: string;
  token_ciphertext: string;
  created_at: Date;
};

export async function findConnection(sql: Queryable, orgId: string): Promise<ConnectionRow | null> {
  const [row] = await sql<ConnectionRow[]>`
    select org_id, bot_id, bot_username, token_ciphertext, created_at
      from telegram_connections where org_id = ${orgId}`;
  return row ?? null;
}

/** The organization's bot, ready to call Telegram; null when none is connected. */
export async function orgBot(deps: Deps, config: TelegramConfig, orgId: string) {
  const row = await findConnection(deps.sql, orgId);
  if (!row) return null;
  return { connection: row, api: telegramApi(config, unseal(config.tokenKey, row.token_ciphertext)) };
}

export async function connectedBot(deps: Deps, identity: Identity) {
  const bot = await orgBot(deps, requireTelegram(deps), identity.orgId);
  if (!bot) throw AppError.conflict('telegram_not_connected', 'no Telegram bot is connected');
  return bot;
}

const connectionView = (deps: Deps, row: ConnectionRow): TelegramConnectionView => ({
  bot_id: row.bot_id,
  bot_username: row.bot_username,
  webhook_url: webhookUrl(deps.env, row.org_id),
  connected_at: row.created_at.toISOString(),
});

export async function telegramStatus(deps: Deps, identity: Identity) {
  requireTelegram(deps);
  const row = await findConnection(deps.sql, identity.orgId);
  return { connection: row ? connectionView(deps, row) : null };
}

/** Telegram's refusal of a token (401 Unauthorized, 404 for a malformed one) as a 400 of ours. */
const refusedToken = (error: unknown) => {
  if (error instanceof GrammyError && (error.error_code === 401 || error.error_code === 404))
    throw AppError.invalid({ bot_token: 'Telegram does not accept this token' });
  throw error;
};

/**
 * Connects the organization's bot: the token must be one Telegram accepts (getMe), the plan must
 * allow a bot (a bot replacing the connected one is fine), and Beckon sets the bot's webhook to
 * this organization's URL with its secret token, for messages and button clicks only. Another
 * bot replacing the connected one takes the place of its routes, links and messages (their chat
 * and user ids mean nothing to the new bot's chats).
 */
export async function connect(deps: Deps, identity: Identity, input: ConnectTelegramInput) {
  const config = requireTelegram(deps);
  const orgId = identity.orgId;
  const gate = async (tx: Queryable) => {
    if (!(await findConnection(tx, orgId))) await enforcePlanLimit(tx, deps.env, orgId, 'telegram_bots');
  };
  await deps.sql.begin(gate);
  const api = telegramApi(config, input.bot_token);
  const me = await api.getMe().catch(refusedToken);
  const botId = String(me.id);
  await api
    .setWebhook(webhookUrl(deps.env, orgId), {
      secret_token: webhookSecret(config, orgId, botId),
      allowed_updates: ['message', 'callback_query'],
      drop_pending_updates: true,
    })
    .catch(refusedToken);
  const token = seal(config.tokenKey, input.bot_token);
  await deps.sql.begin(async (tx) => {
    await gate(tx);
    const existing = await findConnection(tx, orgId);
    if (existing && existing.bot_id !== botId)
      await tx`delete from telegram_connections where org_id = ${orgId}`;
    await tx`
      insert into telegram_connections (org_id, bot_id, bot_username, token_ciphertext, installed_by)
      values (${orgId}, ${botId}, ${me.username}, ${token}, ${identity.userId})
      on conflict (org_id) do update set bot_username = excluded.bot_username,
        token_ciphertext = excluded.token_ciphertext, installed_by = excluded.installed_by, updated_at = now()`;
    await recordOrgChange(tx, identity, 'telegram.connect', { bot_id: botId, bot_username: me.username });
  });
  // Every process knows the organization has Telegram now, before the answer says so (OrgFacts).
  await fenceCaches(deps);
  return telegramStatus(deps, identity);
}

/**
 * Forgets the bot: its webhook is removed at Telegram first when Telegram answers (a revoked
 * token's webhook is gone anyway), then the token, routes, links and message records.
 */
export async function disconnect(deps: Deps, identity: Identity) {
  const config = requireTelegram(deps);
  const bot = await orgBot(deps, config, identity.orgId);
  await bot?.api
    .deleteWebhook()
    .catch((error: unknown) => deps.log.warn({ err: error }, 'telegram webhook removal failed'));
  await deps.sql.begin(async (tx) => {
    const [gone] = await tx<{ bot_id: string }[]>`
      delete from telegram_connections where org_id = ${identity.orgId} returning bot_id`;
    if (gone) await recordOrgChange(tx, identity, 'telegram.disconnect', { bot_id: gone.bot_id });
  });
  return { connection: null };
}
