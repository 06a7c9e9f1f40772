import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';

type Preferences = Record<string, unknown> & { muted_channels: string[] };

let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer({
    env: {
      PUSH_VAPID_KEY: 'BPublicKey',
      PUSH_VAPID_PRIVATE_KEY: 'privateKey',
      PUSH_API_KEY: 'api-key',
      PUSH_PROJECT_ID: 'beckon-test',
      PUSH_APP_ID: '1:2:web:3',
      PUSH_MESSAGING_SENDER_ID: '2',
    },
  });
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

const subscription = (id: string) =>
  JSON.stringify({ endpoint: `https://push.example.test/send/${id}`, keys: { p256dh: 'p', auth: 'a' } });

describe('push devices', () => {
  it('tells clients how to subscribe, without a token', async () => {
    const res = await server.resource.get('/api/push/config');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      webpush: { enabled: true, vapid_public_key: 'BPublicKey' },
      mobile: {
        enabled: false,
        api_key: 'api-key',
        project_id: 'beckon-test',
        app_id: '1:2:web:3',
        messaging_sender_id: '2',
      },
    });
  });

  it("registers a person's devices, moves a known token to its new owner, and forgets one", async () => {
    const a = await f.account('member');
    const b = await f.account('viewer');
    const asA = server.resource.as(a.token);
    const asB = server.resource.as(b.token);
    const web = await asA.post<{ id: string; platform: string }>('/api/push/register', {
      device_token: subscription('1'),
      platform: 'webpush',
    });
    expect(web.status).toBe(200);
    expect(web.body).toMatchObject({ platform: 'webpush' });
    await asA.post('/api/push/register', { device_token: 'fcm-token-1', platform: 'mobile' });
    expect((await asA.get<unknown[]>('/api/push/devices')).body).toHaveLength(2);

    // An item for A (this server runs no push worker: the entries wait).
    const key = await f.apiKey(a.org.id, a.user.id);
    await server.resource.as(key.token).post('/api/items', { title: 'for A' });
    const waiting = () =>
      server.database.sql<{ n: number }[]>`
        select count(*)::int as n from push_queue where device_id = ${web.body.id} and delivered_at is null`;
    expect((await waiting())[0]!.n).toBe(1);

    // The same browser signed in as someone else, in another organization: A's row goes.
    const moved = await asB.post<{ id: string }>('/api/push/register', {
      device_token: subscription('1'),
      platform: 'webpush',
    });
    expect(moved.body.id).not.toBe(web.body.id);
    expect((await asA.get<unknown[]>('/api/push/devices')).body).toHaveLength(1);
    // What was still waiting for the previous owner does not go to the new one.
    expect((await waiting())[0]!.n).toBe(0);

    expect((await asB.post('/api/push/unregister', { device_token: 'fcm-token-1' })).body).toEqual({
      unregistered: false,
    });
    expect((await asA.post('/api/push/unregister', { device_token: 'fcm-token-1' })).body).toEqual({
      unregistered: true,
    });
    expect((await asA.get<unknown[]>('/api/push/devices')).body).toEqual([]);
  });

  it('moves a known token to a colleague within an organization, keeping its row', async () => {
    const team = await f.team(server.resource);
    const colleague = await team.join('member');
    const asOwner = server.resource.as(team.token);
    const asColleague = server.resource.as(colleague.token);
    const first = await asOwner.post<{ id: string }>('/api/push/register', {
      device_token: 'fcm-shared-desk',
      platform: 'mobile',
    });
    const key = await f.apiKey(team.org.id, team.user.id);
    await server.resource.as(key.token).post('/api/items', { title: 'for the owner' });
    const waiting = async () =>
      (
        await server.database.sql<{ n: number }[]>`
          select count(*)::int as n from push_queue
           where org_id = ${team.org.id} and device_id = ${first.body.id} and delivered_at is null`
      )[0]!.n;
    expect(await waiting()).toBe(1);
    const moved = await asColleague.post<{ id: string }>('/api/push/register', {
      device_token: 'fcm-shared-desk',
      platform: 'mobile',
    });
    expect(moved.body.id).toBe(first.body.id);
    expect((await asOwner.get<unknown[]>('/api/push/devices')).body).toEqual([]);
    expect((await asColleague.get<unknown[]>('/api/push/devices')).body).toHaveLength(1);
    expect(await waiting()).toBe(0);
  });

  it("keeps one row per organization for a person's device, and unregistering removes them all", async () => {
    const account = await f.account('member');
    const other = await f.org();
    await f.member(other.id, account.user.id, 'member');
    const here = server.resource.as(account.token);
    const there = server.resource.as((await f.session(account.user.id, other.id)).token);
    const token = subscription('two-orgs');
    const a = await here.post<{ id: string }>('/api/push/register', {
      device_token: token,
      platform: 'webpush',
    });
    const b = await there.post<{ id: string }>('/api/push/register', {
      device_token: token,
      platform: 'webpush',
    });
    expect(b.body.id).not.toBe(a.body.id);
    // Registering again in the first organization keeps both.
    const again = await here.post<{ id: string }>('/api/push/register', {
      device_token: token,
      platform: 'webpush',
    });
    expect(again.body.id).toBe(a.body.id);
    expect((await here.get<{ id: string }[]>('/api/push/devices')).body.map(({ id }) => id)).toEqual([
      a.body.id,
    ]);
    expect((await there.get<{ id: string }[]>('/api/push/devices')).body.map(({ id }) => id)).toEqual([
      b.body.id,
    ]);
    expect((await there.post('/api/push/unregister', { device_token: token })).body).toEqual({
      unregistered: true,
    });
    expect((await here.get<unknown[]>('/api/push/devices')).body).toEqual([]);
    expect((await there.get<unknown[]>('/api/push/devices')).body).toEqual([]);
  });

  it('validates tokens and needs a person: an API key cannot register', async () => {
    const account = await f.account('owner');
    const api = server.resource.as(account.token);
    const bad = await api.post('/api/push/register', {
      device_token: '{"endpoint":"http://x"}',
      platform: 'webpush',
    });
    expect(bad.status).toBe(400);
    expect(Object.keys((bad.body as { fields: object }).fields)).toEqual(['device_token']);
    expect((await api.post('/api/push/register', { device_token: 'x', platform: 'pager' })).status).toBe(400);
    const key = await f.apiKey(account.org.id, account.user.id);
    const agent = await server.resource.as(key.token).post('/api/push/register', {
      device_token: 'agent-token',
      platform: 'mobile',
    });
    expect(agent.status).toBe(403);
  });
});

describe('preferences', () => {
  it('starts from the defaults and changes only what is given', async () => {
    const account = await f.account('member');
    const api = server.resource.as(account.token);
    expect((await api.get<Preferences>('/api/me/preferences')).body).toEqual({
      quiet_hours_enabled: false,
      quiet_hours_start: '22:00',
      quiet_hours_end: '07:00',
      quiet_hours_allow_levels: 'error',
      timezone: 'UTC',
      muted_channels: [],
      muted_apps: [],
      min_level: 'info',
    });
    const updated = await api.put<Preferences>('/api/me/preferences', {
      quiet_hours_enabled: true,
      quiet_hours_start: '23:30',
      quiet_hours_allow_levels: 'error, warning',
      timezone: 'Europe/Paris',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      quiet_hours_enabled: true,
      quiet_hours_start: '23:30',
      quiet_hours_end: '07:00',
      quiet_hours_allow_levels: 'error,warning',
      timezone: 'Europe/Paris',
    });
    const bad = await api.put('/api/me/preferences', {
      quiet_hours_start: '25:00',
      timezone: 'Mars/Olympus',
      quiet_hours_allow_levels: 'loud',
      min_level: 'urgent',
      muted_apps: ['pager'],
    });
    expect(bad.status).toBe(400);
    expect(Object.keys((bad.body as { fields: object }).fields).sort()).toEqual([
      'min_level',
      'muted_apps.0',
      'quiet_hours_allow_levels',
      'quiet_hours_start',
      'timezone',
    ]);
    // Abbreviations mean different zones to different systems (IST), or none to the database (AET).
    for (const zone of ['AET', 'IST', 'Mars/Olympus']) {
      expect((await api.put('/api/me/preferences', { timezone: zone })).status, zone).toBe(400);
    }
    expect(
      (await api.put<Preferences>('/api/me/preferences', { timezone: 'America/Sao_Paulo' })).body.timezone,
    ).toBe('America/Sao_Paulo');
  });

  it("mutes this organization's channels and keeps another organization's mutes", async () => {
    const account = await f.account('owner');
    const api = server.resource.as(account.token);
    const ops = (await api.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body;
    const other = await f.org();
    await f.member(other.id, account.user.id, 'owner');
    const elsewhere = server.resource.as((await f.session(account.user.id, other.id)).token);
    const theirs = (await elsewhere.post<{ id: string }>('/api/channels', { name: 'sales', mode: 'open' }))
      .body;

    expect(
      (await api.put<Preferences>('/api/me/preferences', { muted_channels: [ops.id] })).body.muted_channels,
    ).toEqual([ops.id]);
    const foreign = await api.put('/api/me/preferences', { muted_channels: [theirs.id] });
    expect(foreign.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { 'muted_channels.0': 'unknown channel' },
    });
    await elsewhere.put('/api/me/preferences', { muted_channels: [theirs.id] });
    expect((await api.get<Preferences>('/api/me/preferences')).body.muted_channels).toEqual([ops.id]);
    expect((await elsewhere.get<Preferences>('/api/me/preferences')).body.muted_channels).toEqual([
      theirs.id,
    ]);
  });
});
