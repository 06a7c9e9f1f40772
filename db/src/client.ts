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

/**
 * `sql` for hand-written queries and `db` for drizzle. They are separate clients because
 * drizzle replaces the JSON and date (de)serializers of the client it is given; both connect
 * lazily, so a client that is never used opens no connection.
 */
export function createDb(url: string, options: DbOptions = {}) {
  const client = () =>
    postgres(url, {
      max: options.max ?? 10,
      onnotice: () => {},
      connect_timeout: options.connectTimeoutSeconds ?? 5,
      backoff: reconnectBackoff,
      connection: { application_name: options.applicationName ?? 'beckon' },
    });
  const sql = client();
  const drizzleClient = client();
  const db = drizzle(drizzleClient, { schema });
  return {
    sql,
    db,
    end: async (options?: { timeout?: number }) => {
      await Promise.all([sql.end(options), drizzleClient.end(options)]);
    },
  };
}
