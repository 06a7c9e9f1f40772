import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrationsFolder, withDatabase } from '@beckon/db';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, inject } from 'vitest';

/**
 * For a test of one migration (`tag`): a database of its own and the migrations folder as it
 * stood before that migration (the same folder, its journal cut short), made before the file's
 * tests and removed after them. Migrate with drizzle's `migrate` and `folder` to get the schema
 * before it, then with `migrateDatabase(url)` to run it.
 */
export function beforeMigration(tag: string) {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `beckon_migration_${randomUUID().replaceAll('-', '')}`;
  const state = { url: withDatabase(adminUrl, name), folder: '' };

  beforeAll(async () => {
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin`create database ${admin(name)}`;
    // What runs here is the test's setup and a migration, not the product's statements: kept out
    // of the query rule's statistics (statement-capture.ts).
    await admin`alter database ${admin(name)} set pg_stat_statements.track = 'none'`.catch(() => {});
    await admin.end();
    state.folder = await mkdtemp(path.join(tmpdir(), 'beckon-migrations-'));
    await cp(migrationsFolder, state.folder, { recursive: true });
    const journalPath = path.join(state.folder, 'meta', '_journal.json');
    const journal = JSON.parse(await readFile(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
    const cut = journal.entries.findIndex((entry) => entry.tag === tag);
    expect(cut).toBeGreaterThan(0);
    await writeFile(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }));
  });

  afterAll(async () => {
    await rm(state.folder, { recursive: true, force: true });
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin`drop database if exists ${admin(name)} with (force)`;
    await admin.end();
  });

  return state;
}
