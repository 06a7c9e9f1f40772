import { ANSWER_CATEGORY } from '@beckon/server/modules/push/adapters';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../chat/setup';
import { Factories, startTestServer, type TestServer } from '../harness';
import { type Pushed, startFakeMobilePush } from '../harness/fake-push';
import { until } from '../sdk/helpers';

/**
 * Answering from a phone's notification: the messaging service's HTTP v1 API gets the item's
 * choices as data under the answering category, for Android (`click_action`) and for iOS (the
 * `apns` block it hands to APNs), with a token that answers once as the person.
 */
type Message = {
  token: string;
  notification: { title: string; body?: string };
  data: Record<string, string>;
  android: { notification: Record<string, string> };
  apns: { headers: Record<string, string>; payload: { aps: Record<string, unknown> } };
};

const APP_URL = 'https://app.beckon.test';
let server: TestServer;
let f: Factories;
let phones: Awaited<ReturnType<typeof startFakeMobilePush>>;

beforeAll(async () => {
  phones = await startFakeMobilePush();
  server = await startTestServer({
    worker: true,
    env: { PUSH_SERVICE_ACCOUNT_JSON: phones.serviceAccount, APP_URL },
  });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  await server?.close();
  await phones?.close();
});

/** The messages a phone got for an item, in order. */
const messagesOf = (device: string, itemId: string) =>
  phones.received
    .filter((p: Pushed) => p.token === device && (p.payload as Message).data.item_id === itemId)
    .map((p) => p.payload as Message);

async function nthMessage(device: string, itemId: string, n: number) {
  await until(() => messagesOf(device, itemId).length >= n, 20_000);
  return messagesOf(device, itemId)[n - 1] as Message;
}

describe("a phone's push of an answerable item", () => {
  it('carries the choices under the answering category and a token that answers once', async () => {
    const team = await f.team(server.resource);
    const agent = server.resource.as((await f.apiKey(team.org.id, team.user.id)).token);
    const alice = await team.join('member');
    const device = `alice-phone-${crypto.randomUUID()}`;
    expect(
      (await alice.api.post('/api/push/register', { device_token: device, platform: 'mobile' })).status,
    ).toBe(200);
    const form = { id: 'deploy', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?' }] };
    const item = (await agent.post<Item>('/api/items', { title: 'Deploy v3?', form })).body;

    const asking = await nthMessage(device, item.id, 1);
    expect(asking).toMatchObject({
      notification: { title: 'Deploy v3?' },
      data: {
        item_id: item.id,
        url: `${APP_URL}/items/${item.id}`,
        category: ANSWER_CATEGORY,
        answer_url: `${APP_URL}/api/push/answer`,
      },
      android: { notification: { tag: item.id, click_action: ANSWER_CATEGORY } },
      apns: { headers: { 'apns-collapse-id': item.id }, payload: { aps: { category: ANSWER_CATEGORY } } },
    });
    expect(JSON.parse(asking.data.actions ?? '')).toEqual([
      { action: 'choice-0', title: 'Yes' },
      { action: 'choice-1', title: 'No' },
    ]);
    const token = asking.data.answer_token;
    expect(token).toMatch(/\S{20,}/);

    const answer = (choice: number) => server.resource.as(null).post('/api/push/answer', { token, choice });
    const answered = await answer(1);
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ item_id: item.id, status: 'answered', answer: 'No' });
    expect((await agent.get<Item>(`/api/items/${item.id}`)).body).toMatchObject({
      status: 'answered',
      response: { ok: false },
      answered_via: 'push',
      answered_by: { type: 'user', id: alice.id },
    });
    expect((await answer(0)).status).toBe(409);

    // The push that follows the decision replaces the asking one (same tag and collapse id), without buttons.
    const closed = await nthMessage(device, item.id, 2);
    expect(closed).toMatchObject({
      data: { item_id: item.id, closed: 'true' },
      android: { notification: { tag: item.id } },
      apns: { headers: { 'apns-collapse-id': item.id }, payload: { aps: {} } },
    });
    expect(closed.data).not.toHaveProperty('answer_token');
    expect(closed.data).not.toHaveProperty('category');
    expect(closed.android.notification).not.toHaveProperty('click_action');
    expect(closed.apns.payload.aps).not.toHaveProperty('category');
  });
});
