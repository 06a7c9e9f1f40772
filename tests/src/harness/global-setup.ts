import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type EmbeddedDatabase, ensureDatabase, startEmbeddedPostgres, withDatabase } from '@beckon/db';
import { migrateAll } from '@beckon/server/database';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { freePort } from './ports';
import { buildServer } from './production';

export const TEMPLATE = 'beckon_test_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Server-level URL; each test file clones TEMPLATE into its own database. */
    adminDatabaseUrl: string;
  }
}

/**
 * Builds the compiled server (tests of the production scripts run it), starts the embedded
 * PostgreSQL (or uses TEST_DATABASE_URL), builds a migrated template database once, and hands
 * its server to the test files.
 */
export default async function setup(project: TestProject) {
  await buildServer();
  let embedded: EmbeddedDatabase | undefined;
  let dataDir: string | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    dataDir = await mkdtemp(path.join(tmpdir(), 'beckon-test-pg-'));
    embedded = await startEmbeddedPostgres({ dataDir, port: await freePort() });
    adminUrl = embedded.url;
  }
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`drop database if exists ${admin(TEMPLATE)} with (force)`;
  } finally {
    await admin.end();
  }
  await ensureDatabase(adminUrl, TEMPLATE);
  await migrateAll(withDatabase(adminUrl, TEMPLATE));
  project.provide('adminDatabaseUrl', adminUrl);

  return async () => {
    await embedded?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  };
}
