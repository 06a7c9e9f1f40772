import type { Env } from '../../env';
import { AppError } from '../../errors';
import { deriveKey } from '../chat/secret-box';

const DISCORD_API = 'https://discord.com/api/v10';

export type DiscordConfig = {
  /** Encrypts bot tokens (AES-256-GCM). */
  tokenKey: Buffer;
  /** Discord's REST API base (version included). */
  apiUrl: string;
};

/** Discord's configuration when DISCORD_TOKEN_KEY is set (else null: Discord answers 503). */
export function createDiscordConfig(env: Env): DiscordConfig | null {
  const secret = env.DISCORD_TOKEN_KEY;
  if (!secret) return null;
  return {
    tokenKey: deriveKey(secret, 'beckon discord bot token'),
    apiUrl: (env.DISCORD_API_URL ?? DISCORD_API).replace(/\/+$/, ''),
  };
}

export function requireDiscord(deps: { discord: DiscordConfig | null }): DiscordConfig {
  if (!deps.discord) throw AppError.unavailable('discord_not_configured', 'discord is not configured');
  return deps.discord;
}

/** The Interactions Endpoint URL of one organization's application. */
export const interactionsUrl = (env: Env, orgId: string) => `${env.RESOURCE_URL}/webhooks/discord/${orgId}`;
