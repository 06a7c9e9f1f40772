import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { Factories, freePort, startTestServer, type TestServer } from '../harness';
import { type Pushed, startFakeWebPush } from '../harness/fake-push';
import { until } from '../sdk/helpers';
import {
  type BrowserGlobals,
  type Dashboard,
  ensureDashboardBuilt,
  serviceWorkerPushes,
  startDashboard,
} from './browser';

/**
 * Answering from the lock screen: a push of an item with a yes/no or choice form carries its
 * choices as action buttons and a token signed for its person; the service worker posts the
 * pressed one; a decision made anywhere replaces every notification of the item.
 */
type Item = {
  id: string;
  status: string;
  response: Record<string, unknown> | null;
  answered_via: string | null;
  answered_by: { type: string; id: string } | null;
  approvals?: { approved: number; required: number } | null;
};
type Payload = {
  title: string;
  body: string;
  item_id: string;
  url: string;
  actions?: { action: string; title: string }[];
  answer?: { url: string; token: string };
  closed?: true;
};

let server: TestServer;
let dashboard: Dashboard;
let browsers: Awaited<ReturnType<typeof startFakeWebPush>>;
let f: Factories;

beforeAll(async () => {
  ensureDashboardBuilt();
  browsers = await startFakeWebPush();
  const vapid = webpush.generateVAPIDKeys();
  // The answer URL a push carries is APP_URL's: the dashboard's gateway, on a port chosen first.
  const port = await freePort();
  server = await startTestServer({
    worker: true,
    env: {
      PUSH_VAPID_KEY: vapid.publicKey,
      PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
      APP_URL: `http://127.0.0.1:${port}`,
    },
  });
  dashboard = await startDashboard(server, port);
  f = new Factories(server.database.db);
}, 240_000);
afterAll(async () => {
  await dashboard?.close();
  await server?.close();
  await browsers?.close();
});

const YESNO = { id: 'deploy', fields: [{ id: 'ok', type: 'yesno', label: 'Ship it?' }] };

/** An organization with an agent's key and a member whose browser is subscribed to pushes. */
async function team() {
  const team = await f.team(server.resource);
  const key = await f.apiKey(team.org.id, team.user.id);
  const alice = await team.join('member');
  const device = `alice-${crypto.randomUUID()}`;
  const registered = await alice.api.post('/api/push/register', {
    device_token: browsers.subscribe(device),
    platform: 'webpush',
  });
  expect(registered.status).toBe(200);
  return { ...team, agent: server.resource.as(key.token), alice, device };
}

/** The pushes a device got for an item, in order. */
const pushesOf = (device: string, itemId: string): Payload[] =>
  browsers.received
    .filter((p: Pushed) => p.token === device && p.payload.item_id === itemId)
    .map((p) => p.payload as Payload);

async function nthPush(device: string, itemId: string, n: number): Promise<Payload> {
  await until(() => pushesOf(device, itemId).length >= n, 20_000);
  return pushesOf(device, itemId)[n - 1] as Payload;
}

const answerWith = (payload: Payload, choice: number) =>
  server.resource.post<Record<string, unknown>>('/api/push/answer', { token: payload.answer?.token, choice });

describe('the pushes of an answerable item', () => {
  it('carry no choices for an item whose decision needs a fresh verification: the page answers it', async () => {
    const { agent, device } = await team();
    const item = (
      await agent.post<Item>('/api/items', {
        title: 'Wire 40,000 EUR?',
        form: YESNO,
        require_reauth: { method: 'passkey' },
      })
    ).body;
    const push = await nthPush(device, item.id, 1);
    expect(push.url).toBe(`${dashboard.origin}/items/${item.id}`);
    expect(push.actions).toBeUndefined();
    expect(push.answer).toBeUndefined();
  });

  it('carry the choices and a single-use token that answers as the person, from the push', async () => {
    const { agent, alice, device } = await team();
    const item = (await agent.post<Item>('/api/items', { title: 'Deploy v2?', form: YESNO })).body;
    const push = await nthPush(device, item.id, 1);
    expect(push.actions).toEqual([
      { action: 'choice-0', title: 'Yes' },
      { action: 'choice-1', title: 'No' },
    ]);
    expect(push.answer?.url).toBe(`${dashboard.origin}/api/push/answer`);

    expect((await answerWith({ ...push, answer: { url: '', token: 'forged.token' } }, 0)).status).toBe(400);
    expect((await answerWith(push, 5)).status).toBe(400);
    const answered = await answerWith(push, 1);
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ item_id: item.id, status: 'answered', answer: 'No' });
    const after = (await agent.get<Item>(`/api/items/${item.id}`)).body;
    expect(after).toMatchObject({
      status: 'answered',
      response: { ok: false },
      answered_via: 'push',
      answered_by: { type: 'user', id: alice.id },
    });
    // The token works once.
    expect((await answerWith(push, 0)).status).toBe(409);

    // The item decided, the device gets a push that replaces the first, without buttons.
    const closed = await nthPush(device, item.id, 2);
    expect(closed).toMatchObject({
      closed: true,
      title: 'Deploy v2?',
      url: `${dashboard.origin}/items/${item.id}`,
    });
    expect(closed.body).toMatch(/^Answered by .+ from a notification$/);
    expect(closed.actions).toBeUndefined();
    expect(closed.answer).toBeUndefined();
  });

  it('count as one person toward approvals; a notification without a form has no buttons', async () => {
    const { agent, alice, device } = await team();
    const approval = (
      await agent.post<Item>('/api/items', {
        title: 'Open the firewall?',
        form: { id: 'fw', fields: [{ id: 'approve', type: 'yesno', label: 'Approve?' }] },
        approvals: { required: 2 },
      })
    ).body;
    const counted = await answerWith(await nthPush(device, approval.id, 1), 0);
    expect(counted.body).toEqual({ item_id: approval.id, status: 'open', answer: 'Yes' });
    const after = (await alice.api.get<Item>(`/api/items/${approval.id}`)).body;
    expect(after.approvals).toMatchObject({ approved: 1, required: 2 });

    const note = (await agent.post<Item>('/api/items', { title: 'Backup finished' })).body;
    const plain = await nthPush(device, note.id, 1);
    expect(plain.actions).toBeUndefined();
    expect(plain.answer).toBeUndefined();
  });

  it('replace the notification when someone answers elsewhere: who and where', async () => {
    const { agent, owner, device } = await team();
    const item = (await agent.post<Item>('/api/items', { title: 'Rotate the keys?', form: YESNO })).body;
    const push = await nthPush(device, item.id, 1);
    expect((await owner.post(`/api/items/${item.id}/answer`, { values: { ok: true } })).status).toBe(200);
    const closed = await nthPush(device, item.id, 2);
    expect(closed).toMatchObject({ closed: true, body: expect.stringMatching(/^Answered by \S/) });
    expect((await answerWith(push, 0)).status).toBe(409);
  });
});

describe('the service worker on the lock screen', () => {
  it('shows the choices as buttons and answers with the pressed one, then says so in place', async () => {
    const { agent, device } = await team();
    const item = (await agent.post<Item>('/api/items', { title: 'Restart the cluster?', form: YESNO })).body;
    const push = await nthPush(device, item.id, 1);

    const context = await dashboard.context({ width: 400 });
    await context.grantPermissions(['notifications'], { origin: dashboard.origin });
    const page = await context.newPage();
    await page.goto('/login');
    // The push the server sent, handed to the worker (headless chromium has no push service).
    const handOver = await serviceWorkerPushes(context, page, dashboard.origin);
    const shown = () =>
      page.evaluate(async (tag) => {
        const { navigator } = globalThis as unknown as BrowserGlobals;
        const registration = await navigator.serviceWorker.ready;
        const all = (await registration.getNotifications()) as unknown as {
          body: string;
          tag: string;
          actions: { action: string; title: string }[];
        }[];
        return all
          .filter((n) => n.tag === tag)
          .map((n) => ({ body: n.body, actions: n.actions.map((a) => a.title) }));
      }, item.id);
    const deliver = () => handOver(push);
    await deliver();
    // A push handed over through DevTools is sometimes dropped in loaded runs: again while none shows.
    await expect
      .poll(
        async () => {
          const notifications = await shown();
          if (notifications.length === 0) await deliver();
          return notifications;
        },
        { timeout: 40_000, interval: 1_000 },
      )
      .toEqual([{ body: '', actions: ['Yes', 'No'] }]);

    // The button press, as the browser dispatches it: the worker's click handler with the action.
    const [worker] = context.serviceWorkers();
    await worker?.evaluate(async (tag) => {
      const scope = globalThis as unknown as {
        registration: { getNotifications: (filter: { tag: string }) => Promise<unknown[]> };
        handleNotificationClick: (notification: unknown, action: string) => Promise<void>;
      };
      const [notification] = await scope.registration.getNotifications({ tag });
      await scope.handleNotificationClick(notification, 'choice-0');
    }, item.id);

    const answered = (await agent.get<Item>(`/api/items/${item.id}`)).body;
    expect(answered).toMatchObject({ status: 'answered', response: { ok: true }, answered_via: 'push' });
    await expect.poll(shown, { timeout: 10_000 }).toEqual([{ body: 'Answered: Yes', actions: [] }]);
  }, 120_000);
});
