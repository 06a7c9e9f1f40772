import { createSign } from 'node:crypto';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import webpush from 'web-push';
import { z } from 'zod';
import { resolvePublicAddress } from '../../delivery/outbound';
import type { Env } from '../../env';
import { boundedFetch, boundedHttps, deferredBySlowOrigin, type PushOutcome } from './bounded-request';
import type { PushPayload } from './push-entries';

export type PushAdapter = (token: string, payload: PushPayload) => Promise<PushOutcome>;

const never =
  (error: string): PushAdapter =>
  async () => ({ ok: false, retry: false, gone: false, error });
const failure = (status: number, error: string): PushOutcome => ({
  ok: false,
  // Throttled, down, or an access token that expired (401): later. Gone (404, 410): the
  // subscription ended. Anything else: a bad request.
  retry: status === 429 || status === 401 || status >= 500,
  gone: status === 404 || status === 410,
  error: `${status} ${error}`.slice(0, 200),
});

/**
 * HTTPS to push services resolves the host at connection time and refuses private addresses
 * (like every outbound request, outbound.ts), unless ALLOW_PRIVATE_DESTINATIONS; certificates
 * are checked as for any HTTPS request of the process.
 */
class PublicOnlyAgent extends https.Agent {
  override createConnection(
    options: tls.ConnectionOptions,
    callback: (error: Error | null, socket?: Duplex) => void,
  ) {
    const host = options.host ?? 'localhost';
    resolvePublicAddress(host).then(
      (address) =>
        callback(null, tls.connect({ ...options, host: address, servername: options.servername ?? host })),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
    );
    return undefined as unknown as Duplex;
  }
}

/** Browser pushes (Web Push with VAPID), when both halves of the VAPID key are set. */
export function webPushAdapter(env: Env): PushAdapter {
  if (!env.PUSH_VAPID_KEY || !env.PUSH_VAPID_PRIVATE_KEY) {
    return never('browser push is not configured (PUSH_VAPID_KEY, PUSH_VAPID_PRIVATE_KEY)');
  }
  const app = new URL(env.APP_URL);
  const mail = /<([^>]+)>/.exec(env.SMTP_FROM)?.[1] ?? env.SMTP_FROM;
  const vapidDetails = {
    subject: app.protocol === 'https:' ? app.origin : `mailto:${mail}`,
    publicKey: env.PUSH_VAPID_KEY,
    privateKey: env.PUSH_VAPID_PRIVATE_KEY,
  };
  const options = { ca: https.globalAgent.options.ca, keepAlive: true };
  const agent = env.ALLOW_PRIVATE_DESTINATIONS ? new https.Agent(options) : new PublicOnlyAgent(options);
  return async (token, payload) => {
    try {
      const request = webpush.generateRequestDetails(JSON.parse(token), JSON.stringify(payload), {
        vapidDetails,
        TTL: 24 * 3600,
      });
      const deferred = deferredBySlowOrigin(request.endpoint);
      if (deferred) return deferred;
      const { status, text } = await boundedHttps(request.endpoint, request, agent, env.PUSH_TIMEOUT_MS);
      return status >= 200 && status < 300 ? { ok: true } : failure(status, text || String(status));
    } catch (error) {
      const message = String((error as Error).message ?? error).slice(0, 200);
      // A refused destination stays refused; a network failure may pass later.
      return {
        ok: false,
        retry: !message.startsWith('destination not allowed'),
        gone: false,
        error: message,
      };
    }
  };
}

/** The notification category of pushes that can answer: the app registers its actions under it. */
export const ANSWER_CATEGORY = 'BECKON_ANSWER';

/**
 * A push as the messaging service's HTTP v1 API takes it. Data values are strings: the actions as
 * JSON, with the answer's URL and token, under the answering category (APNs `category`, Android
 * `click_action`). Every push of an item shares one tag / collapse id, so the push that follows a
 * decision replaces the one that asked.
 */
function mobileMessage(deviceToken: string, payload: PushPayload) {
  const answering = payload.actions && payload.answer;
  return {
    token: deviceToken,
    notification: { title: payload.title, body: payload.body },
    data: {
      item_id: payload.item_id,
      level: payload.level,
      url: payload.url,
      ...(answering
        ? {
            category: ANSWER_CATEGORY,
            actions: JSON.stringify(payload.actions),
            answer_url: payload.answer?.url ?? '',
            answer_token: payload.answer?.token ?? '',
          }
        : {}),
      ...(payload.closed ? { closed: 'true' } : {}),
    },
    android: {
      notification: { tag: payload.item_id, ...(answering ? { click_action: ANSWER_CATEGORY } : {}) },
    },
    apns: {
      headers: { 'apns-collapse-id': payload.item_id },
      payload: { aps: answering ? { category: ANSWER_CATEGORY } : {} },
    },
  };
}

const ZServiceAccount = z.object({
  project_id: z.string().min(1),
  client_email: z.string().min(1),
  private_key: z.string().includes('PRIVATE KEY'),
  token_uri: z.url().default('https://oauth2.googleapis.com/token'),
});

const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const FCM_BASE = 'https://fcm.googleapis.com/v1/projects';

/**
 * Mobile pushes through the messaging service's HTTP v1 API, authorized by the service account
 * (PUSH_SERVICE_ACCOUNT_JSON): a signed JWT is exchanged for an access token, kept until shortly
 * before it expires. Without a valid account every entry fails permanently.
 */
export function mobilePushAdapter(env: Env): PushAdapter {
  let json: unknown = null;
  try {
    json = JSON.parse(env.PUSH_SERVICE_ACCOUNT_JSON ?? 'null');
  } catch {
    // reported below
  }
  const parsed = ZServiceAccount.safeParse(json);
  if (!parsed.success) return never('no valid push service account (PUSH_SERVICE_ACCOUNT_JSON)');
  const account = parsed.data;
  let token: { value: string; until: number } | null = null;

  const accessToken = async (): Promise<string | PushOutcome> => {
    if (token && Date.now() < token.until) return token.value;
    const now = Math.floor(Date.now() / 1000);
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({
      iss: account.client_email,
      scope: FCM_SCOPE,
      aud: account.token_uri,
      iat: now,
      exp: now + 3600,
    })}`;
    let signature: string;
    try {
      signature = createSign('RSA-SHA256').update(unsigned).sign(account.private_key, 'base64url');
    } catch {
      return {
        ok: false,
        retry: false,
        gone: false,
        error: 'no valid push service account: its key does not sign',
      };
    }
    const response = await boundedFetch(
      account.token_uri,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
          assertion: `${unsigned}.${signature}`,
        }),
      },
      env.PUSH_TIMEOUT_MS,
    );
    if (response.status < 200 || response.status >= 300) {
      // A refused account will not get better by itself; a service that is down may.
      const error = `service account refused: ${response.status} ${response.text}`.slice(0, 200);
      return { ok: false, retry: response.status >= 500, gone: false, error };
    }
    const body = JSON.parse(response.text) as { access_token: string; expires_in?: number };
    token = { value: body.access_token, until: Date.now() + ((body.expires_in ?? 3600) - 60) * 1000 };
    return token.value;
  };

  return async (deviceToken, payload) => {
    try {
      const bearer = await accessToken();
      if (typeof bearer !== 'string') return bearer;
      const response = await boundedFetch(
        `${FCM_BASE}/${encodeURIComponent(account.project_id)}/messages:send`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
          body: JSON.stringify({ message: mobileMessage(deviceToken, payload) }),
        },
        env.PUSH_TIMEOUT_MS,
      );
      if (response.status >= 200 && response.status < 300) return { ok: true };
      if (response.status === 401) token = null;
      const text = response.text;
      // An unknown or expired registration token: the device is gone.
      if (response.status === 400 && /UNREGISTERED|registration token/i.test(text)) return failure(404, text);
      return failure(response.status, text);
    } catch (error) {
      const deferred = (error as { deferred?: PushOutcome }).deferred;
      if (deferred) return deferred;
      return {
        ok: false,
        retry: true,
        gone: false,
        error: String((error as Error).message ?? error).slice(0, 200),
      };
    }
  };
}
