import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDb, migrateDatabase, migrationsFolder, withDatabase } from '@beckon/db';
import { generateToken, hashToken } from '@beckon/server/auth/tokens';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

/** The migration that moved slugs to the coordinator and made invitation codes name their organization. */
const ORG_SCOPED_LOOKUPS = '0041_org_scoped_lookups';

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
  const cut = journal.entries.findIndex((entry) => entry.tag === ORG_SCOPED_LOOKUPS);
  expect(cut).toBeGreaterThan(0);
  await writeFile(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin`drop database if exists ${admin(name)} with (force)`;
  await admin.end();
});

it("records every organization's slug and the organization of every invitation code issued before", async () => {
  const before = createDb(url, { max: 1, applicationName: 'beckon-test' });
  const code = generateToken();
  const slug = `old-${randomUUID()}`;
  let orgId = '';
  try {
    await migrate(before.db, { migrationsFolder: folder });
    const { sql } = before;
    const [org] = await sql<{ id: string }[]>`
      insert into organizations (name, slug) values ('Old', ${slug}) returning id`;
    orgId = org!.id;
    await sql`
      insert into invitations (org_id, role_id, kind, code_hash, expires_at)
      select ${orgId}, id, 'link', ${hashToken(code)}, now() + interval '7 days'
        from roles where org_id is null and name = 'member'`;
  } finally {
    await before.end();
  }

  await migrateDatabase(url);
  const after = createDb(url, { max: 1, applicationName: 'beckon-test' });
  try {
    const { sql } = after;
    expect(await sql`select slug, org_id from organization_slugs`).toEqual([{ slug, org_id: orgId }]);
    expect(await sql`select token_hash, org_id from legacy_credentials`).toEqual([
      { token_hash: hashToken(code), org_id: orgId },
    ]);
  } finally {
    await after.end();
  }
});
