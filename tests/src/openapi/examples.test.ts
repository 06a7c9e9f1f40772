import { readFile } from 'node:fs/promises';
import type { RecordedExamples } from '@beckon/server/http/openapi-examples';
import type { OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeDiscord,
  type FakeSlack,
  type FakeTeams,
  type FakeTelegram,
  type FakeTwilio,
  startFakeDiscord,
  startFakePayments,
  startFakeSlack,
  startFakeTeams,
  startFakeTelegram,
  startFakeTwilio,
  startTestServer,
  type TestServer,
} from '../harness';
import { APP, SIGNING_SECRET } from '../slack/setup';
import { ACCOUNT } from '../twilio/setup';
import {
  accounts,
  agentKey,
  gates,
  integrations,
  items,
  people,
  slack,
  twilio,
  type Walk,
} from './example-calls';
import { chatApps } from './example-calls-chat';
import { privacy } from './example-calls-privacy';
import { passkeys } from './passkey-calls';
import { EXAMPLES_FILE, ExampleRecorder } from './recorder';

/**
 * Every operation of both documents called once, as a new organization would, against a server
 * with every integration configured (payments, Slack, Telegram, Discord, Teams and Twilio at their fakes). Each call must answer its
 * documented success status; the calls are the documents' examples (UPDATE_OPENAPI_EXAMPLES=1
 * writes them to server/src/http/openapi-examples.json), and completeness.test.ts lints them
 * against their schemas.
 */
let server: TestServer;
let fakeSlack: FakeSlack;
let fakeTelegram: FakeTelegram;
let fakeDiscord: FakeDiscord;
let fakeTeams: FakeTeams;
let fakeTwilio: FakeTwilio;
let payments: Awaited<ReturnType<typeof startFakePayments>>;
let record: ExampleRecorder;

beforeAll(async () => {
  payments = await startFakePayments();
  fakeSlack = await startFakeSlack(APP);
  fakeTelegram = await startFakeTelegram();
  fakeDiscord = await startFakeDiscord();
  fakeTeams = await startFakeTeams();
  fakeTwilio = await startFakeTwilio();
  fakeTwilio.account(ACCOUNT.sid, ACCOUNT.token);
  server = await startTestServer({
    env: {
      DEV_LOGIN_ENABLED: 'true',
      PAYMENT_SECRET_KEY: 'sk_test_beckon',
      PAYMENT_WEBHOOK_SECRET: 'whsec_test_secret',
      PAYMENT_PRICE_TEAM: 'price_team',
      PAYMENT_PRICE_ENTERPRISE: 'price_enterprise',
      PAYMENT_API_URL: payments.url,
      SLACK_CLIENT_ID: APP.clientId,
      SLACK_CLIENT_SECRET: APP.clientSecret,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_TOKEN_KEY: 'a-test-key-for-slack-bot-tokens-at-rest',
      SLACK_API_URL: fakeSlack.url,
      TELEGRAM_TOKEN_KEY: 'a-test-key-for-telegram-bot-tokens-at-rest',
      TELEGRAM_API_URL: fakeTelegram.url,
      DISCORD_TOKEN_KEY: 'a-test-key-for-discord-bot-tokens-at-rest',
      DISCORD_API_URL: fakeDiscord.url,
      TEAMS_TOKEN_KEY: 'a-test-key-for-teams-bot-secrets-at-rest',
      TEAMS_OPENID_URL: fakeTeams.openIdUrl,
      TEAMS_LOGIN_URL: fakeTeams.loginUrl,
      TWILIO_TOKEN_KEY: 'a-test-key-for-twilio-auth-tokens-at-rest',
      TWILIO_API_URL: fakeTwilio.url,
      PUSH_VAPID_KEY: 'BPublicKeyOfTheServer',
      PUSH_VAPID_PRIVATE_KEY: 'privateKey',
    },
  });
  record = new ExampleRecorder({
    resource: (await server.resource.get<OpenAPI3>('/api/openapi.json')).body,
    auth: (await server.auth.get<OpenAPI3>('/auth/openapi.json')).body,
  });
});
afterAll(async () => {
  await server?.close();
  await fakeSlack?.close();
  await fakeTelegram?.close();
  await fakeDiscord?.close();
  await fakeTeams?.close();
  await fakeTwilio?.close();
  await payments?.close();
});

describe('every documented operation, called as a new organization would', () => {
  it('answers each with its documented success status, and the examples file holds each call', async () => {
    const walk: Walk = { server, slack: fakeSlack, twilio: fakeTwilio, record };
    const { owner, ownerAuth, ada, grace, orgId } = await accounts(walk);
    const bot = await agentKey(walk, owner, ownerAuth);
    await passkeys(walk, ownerAuth, orgId);
    const itemId = await items(walk, owner, bot, ada.user_id);
    await people(walk, owner, server.auth, grace);
    await integrations(walk, owner, itemId);
    await slack(walk, owner, orgId);
    await chatApps(record, owner, orgId, { telegram: fakeTelegram, discord: fakeDiscord, teams: fakeTeams });
    await twilio(walk, owner);
    await gates(walk, owner, bot);
    await privacy(walk, owner, orgId);

    expect(record.missing('resource')).toEqual([]);
    expect(record.missing('auth')).toEqual([]);
    if (process.env.UPDATE_OPENAPI_EXAMPLES === '1') await record.save();
    // The checked-in file has an example of each operation this walk reaches (and no other).
    const stored = JSON.parse(await readFile(EXAMPLES_FILE, 'utf8')) as RecordedExamples;
    for (const surface of ['resource', 'auth'] as const) {
      expect(Object.keys(stored[surface] ?? {}).sort(), `${surface}: UPDATE_OPENAPI_EXAMPLES=1`).toEqual(
        Object.keys(record.recorded[surface] ?? {}).sort(),
      );
    }
  }, 120_000);
});
