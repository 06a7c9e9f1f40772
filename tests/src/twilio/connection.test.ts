import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type FakeTwilio, planLimitBody, startTestServer, type TestServer } from '../harness';
import { ACCOUNT, connectTwilio, onPlan, SMS_FROM, startTwilioServer, textIn } from './setup';

let server: TestServer;
let unconfigured: TestServer;
let twilio: FakeTwilio;
let f: Factories;

beforeAll(async () => {
  ({ server, twilio, f } = await startTwilioServer());
  unconfigured = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await unconfigured?.close();
  await twilio?.close();
});

async function teamOrg() {
  const team = await f.team(server.resource);
  await onPlan(server, team.org.id, 'team');
  return team;
}

const codeSentTo = (phone: string) =>
  /\b(\d{6})\b/.exec(
    twilio
      .to(phone)
      .filter((m) => m.body.includes('verification code'))
      .at(-1)?.body ?? '',
  )?.[1];

describe('Twilio configuration', () => {
  it('answers 503 everywhere when Twilio is not configured', async () => {
    const account = await new Factories(unconfigured.database.db).account('owner');
    const api = unconfigured.resource.as(account.token);
    for (const res of [await api.get('/api/twilio/connection'), await api.get('/api/twilio/phone')]) {
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'twilio is not configured', code: 'twilio_not_configured' });
    }
    const inbound = await textIn(unconfigured, account.org.id, { from: '+15551110000', body: 'yes' });
    expect(inbound.status).toBe(503);
  });
});

describe('connecting an account', () => {
  it('is a Team plan feature: Free is refused with the plan-gate 402', async () => {
    const team = await f.team(server.resource);
    const res = await team.owner.put('/api/twilio/connection', {
      account_sid: ACCOUNT.sid,
      auth_token: ACCOUNT.token,
      sms_from: SMS_FROM,
    });
    expect(res.status).toBe(402);
    expect(res.body).toEqual(planLimitBody('twilio_accounts', 0, 0));
  });

  it('refuses credentials Twilio refuses, and stores nothing', async () => {
    const team = await teamOrg();
    const res = await team.owner.put('/api/twilio/connection', {
      account_sid: ACCOUNT.sid,
      auth_token: 'not-the-auth-token-of-it',
      sms_from: SMS_FROM,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'invalid_request',
      fields: { auth_token: 'Twilio refused this account SID and auth token' },
    });
    expect((await team.owner.get('/api/twilio/connection')).body).toEqual({ connection: null });
  });

  it('connects with accepted credentials, never shows the token, and names the webhook URL', async () => {
    const team = await teamOrg();
    await connectTwilio(team.owner);
    const res = await team.owner.get<{ connection: Record<string, unknown> }>('/api/twilio/connection');
    expect(res.body.connection).toMatchObject({
      account_sid: ACCOUNT.sid,
      sms_from: SMS_FROM,
      inbound_url: `${server.deps.env.RESOURCE_URL}/webhooks/twilio/${team.org.id}/messages`,
    });
    expect(JSON.stringify(res.body)).not.toContain(ACCOUNT.token);
    const [stored] = await server.database.sql<{ auth_token_ciphertext: string }[]>`
      select auth_token_ciphertext from twilio_connections where org_id = ${team.org.id}`;
    expect(stored?.auth_token_ciphertext).not.toContain(ACCOUNT.token);
    const member = await team.join('member');
    expect((await member.api.get('/api/twilio/connection')).status).toBe(403);
    expect((await team.owner.delete('/api/twilio/connection')).body).toEqual({ connection: null });
  });
});

describe("a person's phone number", () => {
  it('needs a connected account', async () => {
    const team = await teamOrg();
    const res = await team.owner.put('/api/twilio/phone', { phone: '+15551230000' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'twilio_not_connected' });
  });

  it('is verified by the code texted to it, and only by that code', async () => {
    const team = await teamOrg();
    await connectTwilio(team.owner);
    const phone = '+15551230001';
    const set = await team.owner.put('/api/twilio/phone', { phone });
    expect(set.body).toEqual({ phone: { phone, channel: 'sms', verified: false, opted_out: false } });
    const code = codeSentTo(phone) ?? '';
    expect(twilio.to(phone).at(-1)?.from).toBe(SMS_FROM);
    const wrong = code === '000000' ? '111111' : '000000';
    const refused = await team.owner.post('/api/twilio/phone/verify', { code: wrong });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'invalid_request',
      fields: { code: 'not the code that was sent' },
    });
    const ok = await team.owner.post('/api/twilio/phone/verify', { code });
    expect(ok.body).toEqual({ phone: { phone, channel: 'sms', verified: true, opted_out: false } });
  });

  it('texts a new code at most every 30 seconds', async () => {
    const team = await teamOrg();
    await connectTwilio(team.owner);
    expect((await team.owner.put('/api/twilio/phone', { phone: '+15551230006' })).status).toBe(200);
    const again = await team.owner.put('/api/twilio/phone', { phone: '+15551230007' });
    expect(again.status).toBe(429);
    expect(again.body).toEqual({ error: 'rate limited', code: 'rate_limited' });
    expect(twilio.to('+15551230007')).toEqual([]);
  });

  it('spends the code after five wrong tries', async () => {
    const team = await teamOrg();
    await connectTwilio(team.owner);
    const phone = '+15551230002';
    await team.owner.put('/api/twilio/phone', { phone });
    const code = codeSentTo(phone) ?? '';
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) await team.owner.post('/api/twilio/phone/verify', { code: wrong });
    const late = await team.owner.post('/api/twilio/phone/verify', { code });
    expect(late.status).toBe(410);
    expect(late.body).toMatchObject({ code: 'phone_code_expired' });
  });

  it("refuses another member's number, and a channel the organization does not send on", async () => {
    const team = await teamOrg();
    await team.owner.put('/api/twilio/connection', {
      account_sid: ACCOUNT.sid,
      auth_token: ACCOUNT.token,
      sms_from: SMS_FROM,
    });
    await team.owner.put('/api/twilio/phone', { phone: '+15551230003' });
    const member = await team.join('member');
    const taken = await member.api.put('/api/twilio/phone', { phone: '+15551230003' });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'phone_taken' });
    const whatsapp = await member.api.put('/api/twilio/phone', {
      phone: '+15551230004',
      channel: 'whatsapp',
    });
    expect(whatsapp.status).toBe(400);
    expect(whatsapp.body).toMatchObject({
      fields: { channel: 'the organization sends no whatsapp messages' },
    });
  });

  it('turns Twilio refusing the number into a 400 for the person', async () => {
    const team = await teamOrg();
    await connectTwilio(team.owner);
    twilio.failNext(400, 21211, "The 'To' number +15551230005 is not a valid phone number.");
    const res = await team.owner.put('/api/twilio/phone', { phone: '+15551230005' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      fields: { phone: expect.stringContaining('not a valid phone number') },
    });
  });
});
