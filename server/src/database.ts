import path from 'node:path';
import {
  createSql,
  type EmbeddedDatabase,
  ensureDatabase,
  migrateDatabase,
  startEmbeddedPostgres,
  withDatabase,
} from '@beckon/db';
import { Logger, runMigrations } from 'graphile-worker';
import type { Env } from './env';

const quietLogger = new Logger(() => () => {});

export type DatabaseHandle = { url: string; description: string; close: () => Promise<void> };

/** Applies our migrations and graphile-worker's to the database at `url`. */
export async function migrateAll(url: string): Promise<void> {
  await migrateDatabase(url);
  await runMigrations({ connectionString: url, logger: quietLogger });
}

/**
 * The database named by DATABASE_URL, or (when unset) the embedded PostgreSQL under DATA_DIR,
 * started here and stopped by close(). Migrations run before it is handed out.
 */
export async function openDatabase(
  env: Env,
  log: (line: string) => void = () => {},
): Promise<DatabaseHandle> {
  let embedded: EmbeddedDatabase | undefined;
  let url = env.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres({
      dataDir: path.resolve(env.DATA_DIR),
      port: env.EMBEDDED_POSTGRES_PORT,
      log,
    });
    await ensureDatabase(embedded.url, 'beckon');
    url = withDatabase(embedded.url, 'beckon');
  }
  try {
    await migrateAll(url);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const where = new URL(url);
  return {
    url,
    description: embedded
      ? `embedded PostgreSQL on 127.0.0.1:${env.EMBEDDED_POSTGRES_PORT} (data in ${path.resolve(env.DATA_DIR)})`
      : `PostgreSQL at ${where.host}${where.pathname}`,
    close: async () => {
      await embedded?.stop();
    },
  };
}

/** This process's connection pool (application_name shows it in pg_stat_activity). */
export function connect(env: Env, url: string, applicationName: string) {
  return createSql(url, {
    max: env.DATABASE_POOL_MAX,
    applicationName,
    connectTimeoutSeconds: env.DATABASE_WAIT_MS / 1000,
  });
}
