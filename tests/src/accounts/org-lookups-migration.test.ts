import { randomUUID } from 'node:crypto';
import { createDb, migrateDatabase } from '@beckon/db';
import { generateToken, hashToken } from '@beckon/server/auth/tokens';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { expect, it } from 'vitest';
import { beforeMigration } from '../harness/before-migration';

/** The migration that moved slugs to the coordinator and made invitation codes name their organization. */
const ORG_SCOPED_LOOKUPS = '0041_org_scoped_lookups';

const migration = beforeMigration(ORG_SCOPED_LOOKUPS);

it("records every organization's slug and the organization of every invitation code issued before", async () => {
  const before = createDb(migration.url, { max: 1, applicationName: 'beckon-test' });
  const code = generateToken();
  const slug = `old-${randomUUID()}`;
  let orgId = '';
  try {
    await migrate(before.db, { migrationsFolder: migration.folder });
    const { sql } = before;
    const [org] = await sql<{ id: string }[]>`
      insert into organizations (name, slug) values ('Old', ${slug}) returning id`;
    orgId = org!.id;
    await sql`
      insert into invitations (org_id, role_id, kind, code_hash, expires_at)
      select ${orgId}, id, 'link', ${hashToken(code)}, now() + interval '7 days'
        from roles where org_id is null and name = 'member'`;
  } finally {
    await before.end();
  }

  await migrateDatabase(migration.url);
  const after = createDb(migration.url, { max: 1, applicationName: 'beckon-test' });
  try {
    const { sql } = after;
    expect(await sql`select slug, org_id from organization_slugs`).toEqual([{ slug, org_id: orgId }]);
    expect(await sql`select token_hash, org_id from legacy_credentials`).toEqual([
      { token_hash: hashToken(code), org_id: orgId },
    ]);
  } finally {
    await after.end();
  }
});
