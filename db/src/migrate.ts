import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { createDb } from './client';

const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * db/migrations when run from the source; in the compiled server (this file bundled into
 * server/dist, see server/tsdown.config.mjs) the copy the build puts beside the bundle.
 */
export const migrationsFolder =
  [path.join(here, 'migrations'), path.resolve(here, '../migrations')].find((dir) =>
    existsSync(path.join(dir, 'meta', '_journal.json')),
  ) ?? path.resolve(here, '../migrations');

/** Applies the drizzle-kit migrations (schema, rules and seeds) that have not run yet. */
export async function migrateDatabase(url: string): Promise<void> {
  const { db, end } = createDb(url, { max: 1, applicationName: 'beckon-migrate' });
  try {
    await migrate(db, { migrationsFolder });
  } finally {
    await end();
  }
}
