import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index';

export type Sql = postgres.Sql;
/** A connection pool or an open transaction: what a query helper needs. */
export type Queryable = postgres.Sql | postgres.TransactionSql;
export type Db = ReturnType<typeof createDb>['db'];

export type DbOptions = {
  /** Shown in pg_stat_activity; metrics count this process's connections by it. */
  applicationName?: string;
  max?: number;
  /** Seconds a new connection may take to open before its queries fail (default 5). */
  connectTimeoutSeconds?: number;
};

/**
 * Seconds before a connection that failed is tried again: 50 ms doubling to 1 s. postgres.js's
 * own grows to 20 s after a few failures, so queries made during an outage waited up to 20 s
 * before failing, and the pool came back up to 20 s after the database did.
 */
export const reconnectBackoff = (retries: number) => Math.min(0.05 * 2 ** retries, 1);

/** A postgres.js pool for hand-written queries (what the server uses); it connects lazily. */
export function createSql(url: string, options: DbOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connect_timeout: options.connectTimeoutSeconds ?? 5,
    backoff: reconnectBackoff,
    connection: { application_name: options.applicationName ?? 'beckon' },
  });
}

/** Options of a dedicated connection beyond its name: notifications, reconnection callbacks. */
type DedicatedOptions = { onnotify?: (channel: string, payload: string) => void; onclose?: () => void };

/**
 * One long-lived connection of its own (LISTEN, a session advisory lock): never closed for being
 * idle nor recycled, reconnecting soon after the database is back (postgres.js's own delay grows
 * to 20 s), named in pg_stat_activity.
 */
export function dedicatedConnection(
  url: string,
  applicationName: string,
  options: DedicatedOptions = {},
): Sql {
  return postgres(url, {
    max: 1,
    idle_timeout: 0,
    max_lifetime: null,
    backoff: reconnectBackoff,
    onnotice: () => {},
    connection: { application_name: applicationName },
    ...options,
  } as postgres.Options<Record<string, never>>);
}

/**
 * `sql` and drizzle's `db` (migrations, test factories, scripts). They are separate clients
 * because drizzle replaces the JSON and date (de)serializers of the client it is given.
 */
export function createDb(url: string, options: DbOptions = {}) {
  const sql = createSql(url, options);
  const drizzleClient = createSql(url, options);
  const db = drizzle(drizzleClient, { schema });
  return {
    sql,
    db,
    end: async (options?: { timeout?: number }) => {
      await Promise.all([sql.end(options), drizzleClient.end(options)]);
    },
  };
}
