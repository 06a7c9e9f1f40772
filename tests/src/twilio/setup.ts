import {
  Factories,
  type FakeTwilio,
  type HttpClient,
  startFakeTwilio,
  startTestServer,
  type TestServer,
  twilioSignature,
} from '../harness';
import { eventually, onPlan } from '../slack/setup';

export { eventually, onPlan };

export const ACCOUNT = { sid: `AC${'1'.repeat(32)}`, token: 'twilio-auth-token-of-the-account' };
export const SMS_FROM = '+15550000001';
export const WHATSAPP_FROM = '+15550000002';

/** A server with Twilio configured against a fake Twilio, and the job worker running. */
export async function startTwilioServer(env: Record<string, string> = {}, fake?: FakeTwilio) {
  const twilio = fake ?? (await startFakeTwilio());
  twilio.account(ACCOUNT.sid, ACCOUNT.token);
  const server = await startTestServer({
    worker: true,
    env: {
      TWILIO_TOKEN_KEY: 'a-test-key-for-twilio-auth-tokens-at-rest',
      TWILIO_API_URL: twilio.url,
      ...env,
    },
  });
  return { twilio, server, f: new Factories(server.database.db) };
}

/** Connects the test account, sending from both numbers. */
export async function connectTwilio(api: HttpClient) {
  const res = await api.put('/api/twilio/connection', {
    account_sid: ACCOUNT.sid,
    auth_token: ACCOUNT.token,
    sms_from: SMS_FROM,
    whatsapp_from: WHATSAPP_FROM,
  });
  if (res.status !== 200) throw new Error(`connect: ${res.status} ${res.text}`);
}

/** Adds and verifies the person's number the way they do it: the code comes by text. */
export async function verifyPhone(
  twilio: FakeTwilio,
  api: HttpClient,
  phone: string,
  channel: 'sms' | 'whatsapp' = 'sms',
) {
  const set = await api.put('/api/twilio/phone', { phone, channel });
  if (set.status !== 200) throw new Error(`phone: ${set.status} ${set.text}`);
  const to = channel === 'whatsapp' ? `whatsapp:${phone}` : phone;
  const sent = twilio
    .to(to)
    .filter((m) => m.body.includes('verification code'))
    .at(-1);
  const code = /\b(\d{6})\b/.exec(sent?.body ?? '')?.[1] ?? '';
  const res = await api.post('/api/twilio/phone/verify', { code });
  if (res.status !== 200) throw new Error(`verify: ${res.status} ${res.text}`);
}

let inbound = 0;

/**
 * A message a person sends to the organization's number, posted as Twilio posts it: form fields,
 * signed over the URL Twilio calls (RESOURCE_URL's) with the account's auth token (or as told).
 */
export async function textIn(
  server: TestServer,
  orgId: string,
  message: { from: string; body: string; to?: string },
  options: { token?: string; messageSid?: string; tamper?: boolean; accountSid?: string } = {},
) {
  const path = `/webhooks/twilio/${orgId}/messages`;
  const whatsapp = message.from.startsWith('whatsapp:');
  const params: Record<string, string> = {
    ToCountry: 'US',
    SmsMessageSid: options.messageSid ?? `SM${String(++inbound).padStart(32, 'f')}`,
    NumMedia: '0',
    SmsSid: options.messageSid ?? `SM${String(inbound).padStart(32, 'f')}`,
    SmsStatus: 'received',
    Body: message.body,
    To: message.to ?? (whatsapp ? `whatsapp:${WHATSAPP_FROM}` : SMS_FROM),
    NumSegments: '1',
    MessageSid: options.messageSid ?? `SM${String(inbound).padStart(32, 'f')}`,
    AccountSid: options.accountSid ?? ACCOUNT.sid,
    From: message.from,
    ApiVersion: '2010-04-01',
  };
  const signature = twilioSignature(
    options.token ?? ACCOUNT.token,
    `${server.deps.env.RESOURCE_URL}${path}`,
    params,
  );
  const body = new URLSearchParams(params).toString();
  const res = await fetch(`${server.resource.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    body: options.tamper ? body.replace(encodeURIComponent(message.body), 'tampered') : body,
  });
  const text = await res.text();
  const reply = /<Message>([\s\S]*)<\/Message>/.exec(text)?.[1] ?? null;
  return { status: res.status, text, reply: reply?.replace(/&quot;/g, '"').replace(/&amp;/g, '&') ?? null };
}
