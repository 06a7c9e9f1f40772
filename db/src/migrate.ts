import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { createDb } from './client';

export const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations');

/** Applies the drizzle-kit migrations (schema, rules and seeds) that have not run yet. */
export async function migrateDatabase(url: string): Promise<void> {
  const { db, end } = createDb(url, { max: 1, applicationName: 'beckon-migrate' });
  try {
    await migrate(db, { migrationsFolder });
  } finally {
    await end();
  }
}
