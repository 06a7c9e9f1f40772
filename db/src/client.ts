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
  /** More settings of each session (the test harness turns statement statistics off for its own). */
  settings?: Record<string, string>;
};

/**
 * Seconds before a connection that failed is tried again: 50 ms doubling to 1 s. postgres.js's
 * own grows to 20 s after a few failures, so queries made during an outage waited up to 20 s
 * before failing, and the pool came back up to 20 s after the database did.
 */
export const reconnectBackoff = (retries: number) => Math.min(0.05 * 2 ** retries, 1);

/**
 * Settings of every session Beckon opens. JIT compilation off: Beckon's queries are short, and a
 * stock PostgreSQL built with LLVM (Debian's, most distributions') compiled the item queries
 * whenever their estimated cost passed `jit_above_cost` (a database without statistics yet),
 * which cost seconds of CPU per query on a small machine: a dismissal took ten seconds.
 */
export const SESSION_SETTINGS = { jit: 'off' } as const;

/** A postgres.js pool for hand-written queries (what the server uses); it connects lazily. */
export function createSql(url: string, options: DbOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connect_timeout: options.connectTimeoutSeconds ?? 5,
    backoff: reconnectBackoff,
    connection: {
      ...SESSION_SETTINGS,
      ...options.settings,
      application_name: options.applicationName ?? 'beckon',
    },
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
    connection: { ...SESSION_SETTINGS, application_name: applicationName },
    ...options,
  } as postgres.Options<Record<string, never>>);
}

export type ListenOptions = {
  onnotify: (payload: string) => void;
  /** After each LISTEN that held, the first included; may query `connection`. Throwing retries. */
  onlisten?: (connection: Sql) => Promise<void> | void;
  /** The connection closed: notifications are missed until the next `onlisten`. */
  onclose?: () => void;
};

/**
 * LISTEN on a dedicated connection (above) that keeps listening: after every reconnection it
 * listens again, retried (100 ms doubling to 2 s) until the LISTEN and `onlisten` hold.
 * postgres.js's own `listen` tries once when its connection comes back and keeps quiet if that
 * fails on an open session: a standby still finishing its promotion after a failover refuses
 * LISTEN (25006), and the channel stayed silent for good. Resolves once listening the first time.
 */
export async function listenOnDedicatedConnection(
  url: string,
  applicationName: string,
  channel: string,
  options: ListenOptions,
): Promise<{ connection: Sql; close: () => Promise<void> }> {
  let closing = false;
  let relistening = false;
  let closes = 0;
  const subscribe = async () => {
    await connection`listen ${connection(channel)}`;
    await options.onlisten?.(connection);
  };
  // One loop at a time: every failed reconnection closes the connection again (onclose). A close
  // between the LISTEN and `onlisten`'s queries finds the loop running, and `onlisten` then ran
  // on a new session that does not listen: the loop goes round again.
  const relisten = async () => {
    if (relistening) return;
    relistening = true;
    for (let delay = 100; !closing; delay = Math.min(delay * 2, 2000)) {
      try {
        const before = closes;
        await subscribe();
        if (closes === before) break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
    relistening = false;
  };
  const connection = dedicatedConnection(url, applicationName, {
    onnotify: (name, payload) => {
      if (name === channel) options.onnotify(payload);
    },
    onclose: () => {
      closes++;
      options.onclose?.();
      if (!closing) void relisten();
    },
  });
  const close = async () => {
    closing = true;
    await connection.end({ timeout: 1 });
  };
  try {
    await subscribe();
  } catch (error) {
    await close();
    throw error;
  }
  return { connection, close };
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
