import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDb, migrateDatabase, migrationsFolder, withDatabase } from '@beckon/db';
import { generateToken, hashToken } from '@beckon/server/auth/tokens';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

/** The migration that made API keys and inbound webhook tokens name their organization. */
const ORG_IN_TOKENS = '0039_org_in_tokens';

const adminUrl = inject('adminDatabaseUrl');
const name = `beckon_migration_${randomUUID().replaceAll('-', '')}`;
const url = withDatabase(adminUrl, name);
let folder = '';

beforeAll(async () => {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin`create database ${admin(name)}`;
  // What runs here is the test's setup and a migration, not the product's statements: kept out
  // of the query rule's statistics (statement-capture.ts).
  await admin`alter database ${admin(name)} set pg_stat_statements.track = 'none'`.catch(() => {});
  await admin.end();
  // The migrations as they stood before it: the same folder, its journal cut short.
  folder = await mkdtemp(path.join(tmpdir(), 'beckon-migrations-'));
  await cp(migrationsFolder, folder, { recursive: true });
  const journalPath = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(await readFile(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const cut = journal.entries.findIndex((entry) => entry.tag === ORG_IN_TOKENS);
  expect(cut).toBeGreaterThan(0);
  await writeFile(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin`drop database if exists ${admin(name)} with (force)`;
  await admin.end();
});

it('records the organization of every key and inbound token made before tokens named it', async () => {
  const before = createDb(url, { max: 1, applicationName: 'beckon-test' });
  const key = generateToken();
  const inbound = generateToken();
  let orgId = '';
  try {
    await migrate(before.db, { migrationsFolder: folder });
    const { sql } = before;
    const [org] = await sql<{ id: string }[]>`
      insert into organizations (name, slug) values ('Old', 'old-' || gen_random_uuid()) returning id`;
    orgId = org!.id;
    const [user] = await sql<{ id: string }[]>`
      insert into users (email) values ('old-' || gen_random_uuid() || '@example.test') returning id`;
    await sql`
      with agent as (insert into agents (org_id, name) values (${orgId}, 'old-agent') returning id)
      insert into api_keys (token_hash, org_id, agent_id, user_id) select ${hashToken(key)}, ${orgId}, id, ${user!.id} from agent`;
    await sql`
      insert into inbound_webhooks (org_id, name, token_hash) values (${orgId}, 'old', ${hashToken(inbound)})`;
  } finally {
    await before.end();
  }

  await migrateDatabase(url);
  const after = createDb(url, { max: 1, applicationName: 'beckon-test' });
  try {
    const rows = await after.sql<{ token_hash: string; org_id: string }[]>`
      select token_hash, org_id from legacy_credentials order by token_hash`;
    expect(rows).toEqual(
      [hashToken(key), hashToken(inbound)].sort().map((hash) => ({ token_hash: hash, org_id: orgId })),
    );
  } finally {
    await after.end();
  }
});
