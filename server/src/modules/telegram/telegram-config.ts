import { timingSafeEqual } from 'node:crypto';
import { Api } from 'grammy';
import type { Env } from '../../env';
import { AppError } from '../../errors';
import { deriveKey, keyedDigest } from '../chat/secret-box';

/** Telegram's Bot API calls are answered within this long, or the job tries again later. */
const TELEGRAM_TIMEOUT_SECONDS = 15;

export type TelegramConfig = {
  /** Encrypts bot tokens (AES-256-GCM). */
  tokenKey: Buffer;
  /** Derives each bot's webhook secret (HMAC-SHA256). */
  webhookKey: Buffer;
  apiRoot: string | undefined;
};

/** Telegram's configuration when TELEGRAM_TOKEN_KEY is set (else null: Telegram answers 503). */
export function createTelegramConfig(env: Env): TelegramConfig | null {
  const secret = env.TELEGRAM_TOKEN_KEY;
  if (!secret) return null;
  return {
    tokenKey: deriveKey(secret, 'beckon telegram bot token'),
    webhookKey: deriveKey(secret, 'beckon telegram webhook secret'),
    apiRoot: env.TELEGRAM_API_URL?.replace(/\/+$/, ''),
  };
}

export function requireTelegram(deps: { telegram: TelegramConfig | null }): TelegramConfig {
  if (!deps.telegram) throw AppError.unavailable('telegram_not_configured', 'telegram is not configured');
  return deps.telegram;
}

/**
 * grammY's Bot API client for one bot. Failed calls fail the job, which graphile-worker runs
 * again with its backoff (and the delivery log shows every attempt).
 */
export const telegramApi = (config: TelegramConfig, token: string) =>
  new Api(token, {
    ...(config.apiRoot ? { apiRoot: config.apiRoot } : {}),
    timeoutSeconds: TELEGRAM_TIMEOUT_SECONDS,
  });

/** Where Telegram posts one organization's updates. */
export const webhookUrl = (env: Env, orgId: string) => `${env.RESOURCE_URL}/webhooks/telegram/${orgId}`;

/**
 * The secret Telegram repeats in `X-Telegram-Bot-Api-Secret-Token` on every update of this
 * organization's bot (setWebhook's `secret_token`): derived, never stored, and another one for
 * another bot of the same organization.
 */
export const webhookSecret = (config: TelegramConfig, orgId: string, botId: string) =>
  keyedDigest(config.webhookKey, `${orgId}:${botId}`);

export function sameSecret(expected: string, given: string | undefined): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given ?? '');
  return a.length === b.length && timingSafeEqual(a, b);
}
