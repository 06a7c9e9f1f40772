import { randomUUID } from 'node:crypto';
import { createDb, type Db, type Sql, withDatabase } from '@beckon/db';
import postgres from 'postgres';
import { inject } from 'vitest';
import { TEMPLATE } from './global-setup';
import { UNCAPTURED_SESSION } from './statement-capture';

export type TestDatabase = { url: string; sql: Sql; db: Db; drop: () => Promise<void> };

/** A fresh database for one test file, cloned from the migrated template (fast: no migrations). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('adminDatabaseUrl');
  const name = `beckon_test_${randomUUID().replaceAll('-', '')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`create database ${admin(name)} template ${admin(TEMPLATE)}`;
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const { sql, db, end } = createDb(url, {
    max: 5,
    applicationName: 'beckon-test',
    settings: UNCAPTURED_SESSION,
  });
  return {
    url,
    sql,
    db,
    drop: async () => {
      await end({ timeout: 5 });
      const dropper = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        await dropper`drop database if exists ${dropper(name)} with (force)`;
      } finally {
        await dropper.end();
      }
    },
  };
}
