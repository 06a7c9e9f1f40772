import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema/index';

export type Sql = postgres.Sql;
export type Db = ReturnType<typeof createDb>['db'];

export type DbOptions = {
  /** Shown in pg_stat_activity; metrics count this process's connections by it. */
  applicationName?: string;
  max?: number;
};

export function createDb(url: string, options: DbOptions = {}) {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connect_timeout: 5,
    connection: { application_name: options.applicationName ?? 'beckon' },
  });
  const db = drizzle(sql, { schema });
  return { sql, db };
}
