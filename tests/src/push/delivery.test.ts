// Longer than 300 lines: every push delivery case shares the two fake push services and their setup.
import { startWorker } from '@beckon/server/jobs/worker';
import { forgetSlowOrigins } from '@beckon/server/modules/push/bounded-request';
import { deliverPushTask } from '@beckon/server/modules/push/deliver-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';
import { startFakeMobilePush, startFakeWebPush } from '../harness/fake-push';

type Item = { id: string };
type Entry = {
  attempts: number;
  permanently_failed: boolean;
  delivered_at: Date | null;
  last_error: string | null;
};

let server: TestServer;
let f: Factories;
let browsers: Awaited<ReturnType<typeof startFakeWebPush>>;
let phones: Awaited<ReturnType<typeof startFakeMobilePush>>;

beforeAll(async () => {
  browsers = await startFakeWebPush();
  phones = await startFakeMobilePush();
  const vapid = webpush.generateVAPIDKeys();
  server = await startTestServer({
    worker: true,
    env: {
      PUSH_VAPID_KEY: vapid.publicKey,
      PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
      PUSH_SERVICE_ACCOUNT_JSON: phones.serviceAccount,
      APP_URL: 'https://app.beckon.test',
    },
  });
  f = new Factories(server.database.db);
});
afterAll(async () => {
  await server?.close();
  await phones?.close();
  await browsers?.close();
});

/** An organization whose owner is an agent's (API key) and whose people register devices. */
async function team() {
  const team = await f.team(server.resource);
  const key = await f.apiKey(team.org.id, team.user.id);
  return { ...team, agent: server.resource.as(key.token), person: team.join };
}

const register = (api: HttpClient, device_token: string, platform: 'webpush' | 'mobile') =>
  api.post('/api/push/register', { device_token, platform });

const entries = (itemId: string) =>
  server.database.sql<Entry[]>`
    select attempts, permanently_failed, delivered_at, last_error from push_queue where item_id = ${itemId}`;

const until = async (condition: () => Promise<boolean> | boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('push delivery', () => {
  it("pushes a new item to a person's browser (encrypted, VAPID-signed) and phone", async () => {
    const { agent, person } = await team();
    const alice = await person();
    await register(alice.api, browsers.subscribe('alice-browser'), 'webpush');
    await register(alice.api, 'alice-phone', 'mobile');
    const item = (
      await agent.post<Item>('/api/items', {
        title: 'Deploy to production?',
        message: 'The canary is green.',
        level: 'warning',
      })
    ).body;

    await until(() => browsers.received.some((p) => p.token === 'alice-browser'));
    await until(() => phones.received.some((p) => p.token === 'alice-phone'));
    const web = browsers.received.find((p) => p.token === 'alice-browser')!;
    expect(web.payload).toEqual({
      title: 'Deploy to production?',
      body: 'The canary is green.',
      item_id: item.id,
      level: 'warning',
      url: `https://app.beckon.test/items/${item.id}`,
    });
    const mobile = phones.received.find((p) => p.token === 'alice-phone')!.payload;
    expect(mobile).toMatchObject({
      notification: { title: 'Deploy to production?', body: 'The canary is green.' },
      data: { item_id: item.id, level: 'warning' },
    });
    expect(phones.tokenRequests).toContain('valid');
    await until(async () => (await entries(item.id)).every((e) => e.delivered_at !== null));
    expect((await entries(item.id)).map((e) => e.attempts)).toEqual([1, 1]);
  });

  it('follows preferences: muted channels, minimum level, quiet hours with allowed levels; never the creator', async () => {
    const { owner, agent, person } = await team();
    const muter = await person();
    const picky = await person();
    const sleeper = await person();
    const viewer = await person('viewer');
    const ownerDevice = `owner-${crypto.randomUUID()}`;
    await register(owner, ownerDevice, 'mobile');
    for (const [who, token] of [
      [muter, 'muter'],
      [picky, 'picky'],
      [sleeper, 'sleeper'],
      [viewer, 'viewer'],
    ] as const) {
      await register(who.api, `${token}-${ownerDevice}`, 'mobile');
    }
    const ops = (await owner.post<{ id: string }>('/api/channels', { name: 'ops', mode: 'open' })).body;
    await muter.api.put('/api/me/preferences', { muted_channels: [ops.id] });
    await picky.api.put('/api/me/preferences', { min_level: 'warning' });
    // Quiet all day long in Tokyo: from a minute ago to two minutes ago, wrapping past midnight.
    const tokyo = (msAgo: number) =>
      new Date(Date.now() - msAgo).toLocaleTimeString('en-GB', { timeZone: 'Asia/Tokyo' }).slice(0, 5);
    await sleeper.api.put('/api/me/preferences', {
      quiet_hours_enabled: true,
      quiet_hours_start: tokyo(60_000),
      quiet_hours_end: tokyo(120_000),
      timezone: 'Asia/Tokyo',
      quiet_hours_allow_levels: 'error',
    });

    const recipients = async (body: Record<string, unknown>, as = agent) => {
      const item = (await as.post<Item>('/api/items', body)).body;
      const rows = await server.database.sql<{ device_token: string }[]>`
        select d.device_token from push_queue q join devices d on d.id = q.device_id where q.item_id = ${item.id}`;
      return rows.map((r) => r.device_token.split('-')[0]).sort();
    };
    expect(await recipients({ title: 'info in ops', channel_id: ops.id })).toEqual(['owner', 'viewer']);
    expect(await recipients({ title: 'an error', level: 'error' })).toEqual([
      'muter',
      'owner',
      'picky',
      'sleeper',
      'viewer',
    ]);
    expect(await recipients({ title: 'success', level: 'success' })).toEqual(['muter', 'owner', 'viewer']);
    // A person's own item is not pushed to them.
    expect(await recipients({ title: 'mine', level: 'error' }, owner)).toEqual([
      'muter',
      'picky',
      'sleeper',
      'viewer',
    ]);
  });

  it('retries after 2^attempts seconds, and marks an entry failed after five attempts', async () => {
    const { agent, person } = await team();
    const bob = await person();
    phones.answer('bob-flaky', [503]);
    phones.answer('bob-broken', [500, 500, 500, 500, 500, 500]);
    await register(bob.api, 'bob-flaky', 'mobile');
    const flaky = (await agent.post<Item>('/api/items', { title: 'flaky' })).body;
    await until(async () => (await entries(flaky.id))[0]?.attempts === 1);
    const [first] = await server.database.sql<{ wait: number }[]>`
      select extract(epoch from next_attempt_at - now())::float8 as wait from push_queue where item_id = ${flaky.id}`;
    expect(first!.wait).toBeGreaterThan(0.5);
    expect(first!.wait).toBeLessThanOrEqual(2);
    await until(async () => (await entries(flaky.id))[0]?.delivered_at !== null);
    expect((await entries(flaky.id))[0]).toMatchObject({ attempts: 2, permanently_failed: false });

    await register(bob.api, 'bob-broken', 'mobile');
    const broken = (await agent.post<Item>('/api/items', { title: 'broken' })).body;
    const brokenEntry = async () =>
      (
        await server.database.sql<Entry[]>`
        select q.attempts, q.permanently_failed, q.delivered_at, q.last_error from push_queue q
          join devices d on d.id = q.device_id where q.item_id = ${broken.id} and d.device_token = 'bob-broken'`
      )[0];
    for (let attempt = 1; attempt <= 5; attempt++) {
      await until(async () => (await brokenEntry())?.attempts === attempt);
      // Skip the wait of 2^attempt seconds: the queue's own way to move a job.
      await server.database.sql`
        select graphile_worker.reschedule_jobs(array_agg(id), run_at => now())
          from graphile_worker.jobs where task_identifier = 'deliver_push' and run_at > now()`;
    }
    const last = await brokenEntry();
    expect(last).toMatchObject({ attempts: 5, permanently_failed: true, delivered_at: null });
    expect(last!.last_error).toMatch(/^500/);
  });

  it('forgets a device the push service no longer knows', async () => {
    const { agent, person } = await team();
    const carol = await person();
    await register(carol.api, browsers.subscribe('carol-gone', [410]), 'webpush');
    await agent.post('/api/items', { title: 'anyone there?' });
    await until(async () => (await carol.api.get<unknown[]>('/api/push/devices')).body.length === 0);
  });

  it('does nothing when the queue runs an attempt again (its worker died after recording it)', async () => {
    const { agent, person } = await team();
    const erin = await person();
    await register(erin.api, 'erin-phone', 'mobile');
    const item = (await agent.post<Item>('/api/items', { title: 'once' })).body;
    await until(async () => (await entries(item.id))[0]?.delivered_at != null);
    const received = () => phones.received.filter((p) => p.token === 'erin-phone').length;
    expect(received()).toBe(1);
    const [entry] = await server.database.sql<{ id: string }[]>`
      select id from push_queue where item_id = ${item.id}`;
    await deliverPushTask(server.deps)({ entry_id: entry!.id, attempt: 1 });
    expect(received()).toBe(1);
    expect((await entries(item.id))[0]).toMatchObject({ attempts: 1 });
  });

  it('never lets concurrent workers take the same entry', async () => {
    const { agent, person } = await team();
    const dave = await person();
    await register(dave.api, 'dave-phone', 'mobile');
    const others = await Promise.all([1, 2, 3].map(() => startWorker(server.deps, server.database.url)));
    try {
      // Bursts of 20: one address may have only HTTP_MAX_BODIES_PER_ADDRESS (32) bodies in flight.
      const items = [];
      for (const burst of [0, 20, 40]) {
        items.push(
          ...(await Promise.all(
            Array.from({ length: 20 }, (_, i) =>
              agent.post<Item>('/api/items', { title: `burst ${burst + i}` }),
            ),
          )),
        );
      }
      expect(items.map((r) => r.status)).toEqual(Array(60).fill(201));
      const ids = new Set(items.map((r) => r.body.id));
      const mine = () => phones.received.filter((p) => p.token === 'dave-phone');
      await until(() => mine().length >= 60);
      await new Promise((r) => setTimeout(r, 300));
      const delivered = mine().map((p) => (p.payload as { data: { item_id: string } }).data.item_id);
      expect(delivered).toHaveLength(60);
      expect(new Set(delivered)).toEqual(ids);
    } finally {
      for (const worker of others) await worker.stop();
    }
  });
});

describe('push without configuration', () => {
  it('marks every entry permanently failed at once', async () => {
    const plain = await startTestServer({ worker: true });
    try {
      const pf = new Factories(plain.database.db);
      const account = await pf.account('owner');
      const user = await pf.user();
      await pf.member(account.org.id, user.id, 'member');
      const api = plain.resource.as((await pf.session(user.id, account.org.id)).token);
      await api.post('/api/push/register', { device_token: 'unconfigured-phone', platform: 'mobile' });
      const item = (await plain.resource.as(account.token).post<Item>('/api/items', { title: 'x' })).body;
      const entry = async () =>
        (await plain.database.sql<Entry[]>`select * from push_queue where item_id = ${item.id}`)[0];
      await until(async () => (await entry())?.permanently_failed === true);
      expect(await entry()).toMatchObject({
        attempts: 1,
        delivered_at: null,
        last_error: 'no valid push service account (PUSH_SERVICE_ACCOUNT_JSON)',
      });
    } finally {
      await plain.close();
    }
  });

  it('refuses a browser endpoint on a private address, once and for all', async () => {
    const vapid = webpush.generateVAPIDKeys();
    const strict = await startTestServer({
      worker: true,
      env: {
        ALLOW_PRIVATE_DESTINATIONS: 'false',
        PUSH_VAPID_KEY: vapid.publicKey,
        PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
      },
    });
    try {
      const team = await new Factories(strict.database.db).team(strict.resource);
      const person = await team.join('member');
      await person.api.post('/api/push/register', {
        device_token: browsers.subscribe('internal'),
        platform: 'webpush',
      });
      const item = (await team.owner.post<Item>('/api/items', { title: 'to 127.0.0.1?' })).body;
      const entry = async () =>
        (await strict.database.sql<Entry[]>`select * from push_queue where item_id = ${item.id}`)[0];
      await until(async () => (await entry())?.permanently_failed === true);
      expect(await entry()).toMatchObject({ attempts: 1, delivered_at: null });
      expect((await entry())!.last_error).toMatch(/^destination not allowed: 127\.0\.0\.1/);
      expect(browsers.received.filter((p) => p.token === 'internal')).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});

describe('push endpoints that misbehave', () => {
  let bounded: TestServer;
  beforeAll(async () => {
    const vapid = webpush.generateVAPIDKeys();
    bounded = await startTestServer({
      worker: true,
      env: {
        PUSH_VAPID_KEY: vapid.publicKey,
        PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
        PUSH_TIMEOUT_MS: '500',
      },
    });
  });
  afterAll(async () => {
    forgetSlowOrigins();
    await bounded?.close();
  });

  const personOf = async () => {
    const team = await new Factories(bounded.database.db).team(bounded.resource);
    return { owner: team.owner, person: await team.join('member') };
  };
  const entryOf = async (itemId: string) =>
    (await bounded.database.sql<Entry[]>`select * from push_queue where item_id = ${itemId}`)[0];

  it('an endless answer is read up to the cap, and the push counts as delivered', async () => {
    const { owner, person } = await personOf();
    await person.api.post('/api/push/register', {
      device_token: browsers.subscribe('endless', [], { origin: 1, misbehave: 'endless' }),
      platform: 'webpush',
    });
    const item = (await owner.post<Item>('/api/items', { title: 'a stream that never ends' })).body;
    await until(async () => (await entryOf(item.id))?.delivered_at != null);
    expect(await entryOf(item.id)).toMatchObject({ attempts: 1, permanently_failed: false });
    // What the endpoint managed to write before we stopped reading: kernel buffers, not gigabytes.
    expect(browsers.streamed.bytes).toBeLessThan(64 * 1024 * 1024);
  });

  it('a slow endpoint runs into the deadline once; its retries wait without asking, others go on', {
    timeout: 90_000,
  }, async () => {
    const slow = await personOf();
    const other = await personOf();
    await slow.person.api.post('/api/push/register', {
      device_token: browsers.subscribe('hangs', [], { origin: 1, misbehave: 'hang' }),
      platform: 'webpush',
    });
    await other.person.api.post('/api/push/register', {
      device_token: browsers.subscribe('answers'),
      platform: 'webpush',
    });
    const stuck = (await slow.owner.post<Item>('/api/items', { title: 'to a slow endpoint' })).body;
    await until(async () => (await entryOf(stuck.id))?.attempts === 1);
    expect((await entryOf(stuck.id))!.last_error).toMatch(/no answer within 500 ms/);

    const items = await Promise.all(
      [1, 2, 3].map((i) => other.owner.post<Item>('/api/items', { title: `meanwhile ${i}` })),
    );
    await bounded.database.sql`update push_queue set next_attempt_at = now() where item_id = ${stuck.id}`;
    await until(async () => (await entryOf(stuck.id))?.attempts === 2);
    expect((await entryOf(stuck.id))!.last_error).toMatch(
      /^deferred: https:\/\/127\.0\.0\.1:\d+ did not answer/,
    );
    expect(browsers.requests.get('hangs')).toBe(1);
    // Generous on a loaded machine: what matters is that they are delivered, not when.
    for (const { body } of items)
      await until(async () => (await entryOf(body.id))?.delivered_at != null, 40_000);
    forgetSlowOrigins();
  });
});
