import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type EmbeddedDatabase, ensureDatabase, startEmbeddedPostgres, withDatabase } from '@beckon/db';
import { migrateAll } from '@beckon/server/database';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { freePort } from './ports';
import { buildServer } from './production';
import {
  CAPTURE_SETTINGS,
  checkCaptured,
  describeOffences,
  OFFENCES_FILE,
  startCapture,
} from './statement-capture';

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
 * its server to the test files. At the end, the statements the product ran must name their
 * organization (statement-capture.ts): the run fails listing those that do not.
 */
export default async function setup(project: TestProject) {
  await buildServer();
  let embedded: EmbeddedDatabase | undefined;
  let dataDir: string | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    dataDir = await mkdtemp(path.join(tmpdir(), 'beckon-test-pg-'));
    embedded = await startEmbeddedPostgres({ dataDir, port: await freePort(), settings: CAPTURE_SETTINGS });
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
  const capturing = await startCapture(adminUrl);
  await rm(OFFENCES_FILE, { force: true });
  project.provide('adminDatabaseUrl', adminUrl);

  return async () => {
    try {
      const { distributed, listed, offences } = capturing
        ? await checkCaptured(adminUrl)
        : { distributed: 0, listed: 0, offences: [] };
      if (capturing) {
        console.log(
          `query rule: ${distributed} statements on distributed tables, ${listed} listed as cross-organization, ${offences.length} unlisted without their organization`,
        );
      }
      if (offences.length > 0) {
        // The whole statements, for reading: the error shortens them.
        await writeFile(OFFENCES_FILE, describeOffences(offences, Infinity));
        // An error thrown here is only printed: the exit code is what fails the run.
        console.error(describeOffences(offences));
        process.exitCode = 1;
      }
    } finally {
      await embedded?.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    }
  };
}
