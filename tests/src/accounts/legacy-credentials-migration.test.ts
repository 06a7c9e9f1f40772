import { createDb, migrateDatabase } from '@beckon/db';
import { generateToken, hashToken } from '@beckon/server/auth/tokens';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { expect, it } from 'vitest';
import { beforeMigration } from '../harness/before-migration';

/** The migration that made API keys and inbound webhook tokens name their organization. */
const ORG_IN_TOKENS = '0039_org_in_tokens';

const migration = beforeMigration(ORG_IN_TOKENS);

it('records the organization of every key and inbound token made before tokens named it', async () => {
  const before = createDb(migration.url, { max: 1, applicationName: 'beckon-test' });
  const key = generateToken();
  const inbound = generateToken();
  let orgId = '';
  try {
    await migrate(before.db, { migrationsFolder: migration.folder });
    const { sql } = before;
    const [org] = await sql<{ id: string }[]>`
      insert into organizations (name, slug) values ('Old', 'old-' || gen_random_uuid()) returning id`;
    orgId = org!.id;
    const [user] = await sql<{ id: string }[]>`
      insert into users (email) values ('old-' || gen_random_uuid() || '@example.test') returning id`;
    await sql`
      with agent as (insert into agents (org_id, name) values (${orgId}, 'old-agent') returning id)
      insert into api_keys (token_hash, org_id, agent_id, user_id) select ${hashToken(key)}, ${orgId}, id, ${user!.id} from agent`;
    await sql`
      insert into inbound_webhooks (org_id, name, token_hash) values (${orgId}, 'old', ${hashToken(inbound)})`;
  } finally {
    await before.end();
  }

  await migrateDatabase(migration.url);
  const after = createDb(migration.url, { max: 1, applicationName: 'beckon-test' });
  try {
    const rows = await after.sql<{ token_hash: string; org_id: string }[]>`
      select token_hash, org_id from legacy_credentials order by token_hash`;
    expect(rows).toEqual(
      [hashToken(key), hashToken(inbound)].sort().map((hash) => ({ token_hash: hash, org_id: orgId })),
    );
  } finally {
    await after.end();
  }
});
