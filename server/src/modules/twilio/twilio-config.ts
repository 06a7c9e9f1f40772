import { hkdfSync } from 'node:crypto';
import twilio from 'twilio';
import type { Env } from '../../env';
import { AppError } from '../../errors';

/** Twilio's REST calls are answered within this long, or the job tries again later. */
const TWILIO_TIMEOUT_MS = 15_000;

export type TwilioConfig = {
  /** Encrypts the organizations' auth tokens (AES-256-GCM). */
  tokenKey: Buffer;
  /** Hashes phone verification codes (HMAC-SHA256). */
  codeKey: Buffer;
  /** Twilio's REST origin when it is not its own (a local fake in tests). */
  apiUrl: string | undefined;
};

/** Twilio's configuration when TWILIO_TOKEN_KEY is set (else null: Twilio answers 503). */
export function createTwilioConfig(env: Env): TwilioConfig | null {
  const key = env.TWILIO_TOKEN_KEY;
  if (!key) return null;
  // Two keys from one secret, each for one use, so a code hash can never be an encryption key.
  const derive = (label: string) => Buffer.from(hkdfSync('sha256', key, '', label, 32));
  return {
    tokenKey: derive('beckon twilio auth token'),
    codeKey: derive('beckon twilio verification code'),
    apiUrl: env.TWILIO_API_URL,
  };
}

export function requireTwilio(deps: { twilio: TwilioConfig | null }): TwilioConfig {
  const config = deps.twilio;
  if (!config) throw AppError.unavailable('twilio_not_configured', 'twilio is not configured');
  return config;
}

/**
 * The library's own request client, with every request's origin replaced by `origin`: Twilio's
 * client has no base-URL option (its `edge` and `region` only rename hosts under twilio.com), and
 * this keeps everything else (auth, form encoding, answers, errors) the library's.
 */
class RedirectedRequestClient extends twilio.RequestClient {
  constructor(private readonly origin: URL) {
    super({ timeout: TWILIO_TIMEOUT_MS });
  }

  override request<TData>(opts: Parameters<twilio.RequestClient['request']>[0] & { data?: TData }) {
    const uri = new URL(opts.uri);
    uri.protocol = this.origin.protocol;
    uri.host = this.origin.host;
    return super.request<TData>({ ...opts, uri: uri.toString() });
  }
}

/**
 * Twilio's official client for one account. Its own retries stay off (the default): a failed
 * call fails the job, which graphile-worker runs again with its backoff.
 */
export function twilioClient(config: TwilioConfig, accountSid: string, authToken: string) {
  const httpClient = config.apiUrl
    ? new RedirectedRequestClient(new URL(config.apiUrl))
    : new twilio.RequestClient({ timeout: TWILIO_TIMEOUT_MS });
  return twilio(accountSid, authToken, { httpClient });
}

export type TwilioClient = ReturnType<typeof twilioClient>;

/** Twilio's address of a number on a channel: WhatsApp's carry a `whatsapp:` prefix. */
export const address = (channel: 'sms' | 'whatsapp', phone: string) =>
  channel === 'whatsapp' ? `whatsapp:${phone}` : phone;
