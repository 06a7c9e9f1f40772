import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { LogLevel, WebClient } from '@slack/web-api';
import type { Env } from '../../env';
import { AppError } from '../../errors';

/** Slack's Web API calls are answered within this long, or the job tries again later. */
const SLACK_TIMEOUT_MS = 15_000;

export type SlackConfig = {
  clientId: string;
  clientSecret: string;
  signingSecret: string;
  /** Encrypts bot tokens (AES-256-GCM). */
  tokenKey: Buffer;
  /** Signs install states and account-link states (HMAC-SHA256). */
  linkKey: Buffer;
  apiUrl: string | undefined;
};

/**
 * Slack's configuration, when all four settings are present (else null: Slack answers 503); made
 * once per process by createDeps (`deps.slack`).
 */
export function createSlackConfig(env: Env): SlackConfig | null {
  const { SLACK_CLIENT_ID, SLACK_CLIENT_SECRET, SLACK_SIGNING_SECRET, SLACK_TOKEN_KEY } = env;
  if (!SLACK_CLIENT_ID || !SLACK_CLIENT_SECRET || !SLACK_SIGNING_SECRET || !SLACK_TOKEN_KEY) return null;
  // Two keys from one secret, each for one use, so a signature can never be an encryption key.
  const derive = (label: string) => Buffer.from(hkdfSync('sha256', SLACK_TOKEN_KEY, '', label, 32));
  return {
    clientId: SLACK_CLIENT_ID,
    clientSecret: SLACK_CLIENT_SECRET,
    signingSecret: SLACK_SIGNING_SECRET,
    tokenKey: derive('beckon slack bot token'),
    linkKey: derive('beckon slack signed value'),
    apiUrl: env.SLACK_API_URL,
  };
}

export const SLACK_UNAVAILABLE = 'slack is not configured';

export function requireSlack(deps: { slack: SlackConfig | null }): SlackConfig {
  const config = deps.slack;
  if (!config) throw AppError.unavailable('slack_not_configured', SLACK_UNAVAILABLE);
  return config;
}

/**
 * Slack's official Web API client. Its own retries are off: a failed call fails the job, which
 * graphile-worker runs again with its backoff (and the delivery log shows every attempt).
 */
export function slackClient(config: SlackConfig, token?: string): WebClient {
  return new WebClient(token, {
    ...(config.apiUrl
      ? { slackApiUrl: config.apiUrl.endsWith('/') ? config.apiUrl : `${config.apiUrl}/` }
      : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: SLACK_TIMEOUT_MS,
    // Failures are recorded in the delivery log and the process log; its own console output stays quiet.
    logLevel: LogLevel.ERROR,
  });
}

/** base64(iv | tag | ciphertext) of a bot token. */
export function encryptToken(config: Pick<SlackConfig, 'tokenKey'>, token: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', config.tokenKey, iv);
  const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

export function decryptToken(config: Pick<SlackConfig, 'tokenKey'>, stored: string): string {
  const bytes = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', config.tokenKey, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}

/** A value signed for one purpose with an expiry: `base64url(json).base64url(hmac)`. */
export function signValue(config: SlackConfig, purpose: string, value: object, ttlSeconds: number): string {
  const body = Buffer.from(
    JSON.stringify({ ...value, purpose, exp: Math.floor(Date.now() / 1000) + ttlSeconds }),
  ).toString('base64url');
  return `${body}.${createHmac('sha256', config.linkKey).update(body).digest('base64url')}`;
}

/** The value of a signed string of this purpose, or null (forged, expired, another purpose). */
export function verifyValue(
  config: SlackConfig,
  purpose: string,
  signed: string,
): Record<string, unknown> | null {
  const [body = '', mac = ''] = signed.split('.');
  const expected = createHmac('sha256', config.linkKey).update(body).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (value.purpose !== purpose || typeof value.exp !== 'number') return null;
    return value.exp >= Date.now() / 1000 ? value : null;
  } catch {
    return null;
  }
}
