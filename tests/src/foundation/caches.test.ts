import { CredentialCache } from '@beckon/server/auth/credential-cache';
import type { Identity } from '@beckon/server/auth/identity';
import { fenceCaches } from '@beckon/server/caches/fence';
import { Invalidations } from '@beckon/server/caches/invalidations';
import { OrgFacts } from '@beckon/server/caches/org-facts';
import { pino } from 'pino';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, Factories, type TestDatabase } from '../harness';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

const identity = (orgId = 'o1', userId = 'u1'): Identity => ({
  userId,
  orgId,
  agentId: null,
  source: 'session',
  clientId: null,
  credentialId: 'c',
  role: 'owner',
  permissions: ['*'],
});
const inAnHour = () => new Date(Date.now() + 3600_000);

const warnings: unknown[] = [];
const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
const fence = (options?: { timeoutMs?: number }) => fenceCaches({ sql: database.sql, log }, options);

async function listening() {
  const cache = new CredentialCache();
  const facts = new OrgFacts();
  const listener = await new Invalidations([cache, facts]).listen(database.url);
  return { cache, facts, listener };
}

const waitUntil = async (condition: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 200 && !(await condition()); i++) await new Promise((r) => setTimeout(r, 50));
  expect(await condition()).toBe(true);
};

describe('credential and organization caches', () => {
  it('serves nothing before it listens', () => {
    const cache = new CredentialCache();
    cache.set('h', identity(), inAnHour(), cache.begin());
    expect(cache.get('h')).toBeNull();
  });

  it('drops an entry when the database announces a change to its credential', async () => {
    const { cache, listener } = await listening();
    try {
      const f = new Factories(database.db);
      const { session } = await f.account();
      cache.set(session.tokenHash, identity(), inAnHour(), cache.begin());
      cache.set('other', identity(), inAnHour(), cache.begin());
      expect(cache.get(session.tokenHash)).not.toBeNull();
      await database.sql`update sessions set revoked_at = now() where id = ${session.id}`;
      expect(await fence()).toBe(true);
      expect(cache.get(session.tokenHash)).toBeNull();
      expect(cache.get('other')).not.toBeNull();
    } finally {
      await listener.close();
    }
  });

  it('drops the entries of a member, and everything on a role change', async () => {
    const { cache, listener } = await listening();
    try {
      cache.set('a', identity('o1', 'u1'), inAnHour(), cache.begin());
      cache.set('b', identity('o1', 'u2'), inAnHour(), cache.begin());
      cache.apply('member', 'o1', 'u1');
      expect(cache.get('a')).toBeNull();
      expect(cache.get('b')).not.toBeNull();
      cache.apply('role', 'r1', undefined);
      expect(cache.get('b')).toBeNull();
    } finally {
      await listener.close();
    }
  });

  it('remembers whether an organization has webhooks until one of its webhooks changes', async () => {
    const { facts, listener } = await listening();
    try {
      const f = new Factories(database.db);
      const org = await f.org();
      expect(facts.known('webhooks', org.id)).toBeNull();
      facts.remember('webhooks', org.id, false, facts.begin());
      expect(facts.known('webhooks', org.id)).toBe(false);
      await database.sql`insert into webhooks (org_id, name, url, events, secret)
                         values (${org.id}, 'w', 'https://example.com', '{item.created}', 's')`;
      expect(await fence()).toBe(true);
      expect(facts.known('webhooks', org.id)).toBeNull();
    } finally {
      await listener.close();
    }
    expect(facts.known('webhooks', 'anything')).toBeNull(); // not listening: nothing is known
  });

  it('forgets that an organization has no chat app of a kind when it connects one', async () => {
    const { facts, listener } = await listening();
    const connect = {
      telegram: (
        orgId: string,
      ) => database.sql`insert into telegram_connections (org_id, bot_id, bot_username, token_ciphertext)
                                                values (${orgId}, '1', 'bot', 'x')`,
      discord: (
        orgId: string,
      ) => database.sql`insert into discord_connections (org_id, application_id, application_name, public_key, token_ciphertext)
                                               values (${orgId}, '1', 'app', 'k', 'x')`,
      teams: (orgId: string) => database.sql`insert into teams_connections (org_id, app_id, secret_ciphertext)
                                             values (${orgId}, 'a', 'x')`,
    };
    try {
      const org = await new Factories(database.db).org();
      for (const [app, insert] of Object.entries(connect) as [
        keyof typeof connect,
        (orgId: string) => unknown,
      ][]) {
        facts.remember(app, org.id, false, facts.begin());
        expect(facts.known(app, org.id)).toBe(false);
        await insert(org.id);
        expect(await fence()).toBe(true);
        expect(facts.known(app, org.id)).toBeNull();
      }
    } finally {
      await listener.close();
    }
  });

  it('does not store a lookup that raced an invalidation', async () => {
    const { cache, listener } = await listening();
    try {
      const startedAt = cache.begin();
      cache.apply('token', 'h', undefined);
      cache.set('h', identity(), inAnHour(), startedAt);
      expect(cache.get('h')).toBeNull();
    } finally {
      await listener.close();
    }
  });

  it('does not serve an entry past its credential expiry', async () => {
    const { cache, listener } = await listening();
    try {
      cache.set('h', identity(), new Date(Date.now() - 1), cache.begin());
      expect(cache.get('h')).toBeNull();
    } finally {
      await listener.close();
    }
  });

  it('forgets everything when its listening connection drops, and serves again once it is back', async () => {
    const { cache, listener } = await listening();
    try {
      cache.set('h', identity(), inAnHour(), cache.begin());
      const pids = () => database.sql<{ pid: number }[]>`
        select pid from pg_stat_activity
         where application_name = 'beckon-identity-listener' and datname = current_database()`;
      const [before] = await pids();
      await database.sql`select pg_terminate_backend(${before!.pid})`;
      await waitUntil(async () => {
        const now = await pids();
        return now.length === 1 && now[0]!.pid !== before!.pid && cache.serving;
      });
      expect(cache.get('h')).toBeNull();
      cache.set('h2', identity(), inAnHour(), cache.begin());
      expect(cache.get('h2')).not.toBeNull();
    } finally {
      await listener.close();
    }
  });

  it('fences: answers once every listening cache has applied what was committed before', async () => {
    const caches = [await listening(), await listening()];
    try {
      const f = new Factories(database.db);
      const { session } = await f.account();
      for (const { cache } of caches) cache.set(session.tokenHash, identity(), inAnHour(), cache.begin());
      await database.sql`update sessions set revoked_at = now() where id = ${session.id}`;
      expect(await fence()).toBe(true);
      // No waiting after the fence: both caches have already dropped the session.
      for (const { cache } of caches) expect(cache.get(session.tokenHash)).toBeNull();
    } finally {
      for (const { listener } of caches) await listener.close();
    }
  });

  it('fences at once with no cache listening, and gives up on a cache that never answers', async () => {
    expect(await fence()).toBe(true);
    // A listener under the caches' name that never acknowledges (as a hung process would).
    const mute = postgres(database.url, {
      max: 1,
      connection: { application_name: 'beckon-identity-listener' },
    });
    try {
      await mute.listen('beckon_identity', () => {});
      const mutePids = await mute<{ pid: number }[]>`
        select pid from pg_stat_activity
         where application_name = 'beckon-identity-listener' and datname = current_database()`;
      warnings.length = 0;
      expect(await fence({ timeoutMs: 300 })).toBe(false);
      expect(warnings).toEqual([expect.objectContaining({ msg: 'caches did not confirm a change' })]);
      const named = (warnings[0] as { pids: number[] }).pids;
      expect(named.sort()).toEqual(mutePids.map((row) => row.pid).sort());
    } finally {
      await mute.end();
    }
    // Gone, it is no longer waited for.
    expect(await fence({ timeoutMs: 5000 })).toBe(true);
  });
});
