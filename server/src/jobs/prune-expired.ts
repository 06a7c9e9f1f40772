import type { Sql } from '@beckon/db';

/**
 * Hourly housekeeping: drops credentials and records past their use, and audit entries past the
 * retention period of each organization's plan. Safe to run twice.
 */
export async function pruneExpired(sql: Sql): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const run = async (name: string, query: Promise<{ count: number }>) => {
    counts[name] = (await query).count;
  };
  await run('sessions', sql`delete from sessions where expires_at < now() - interval '1 day'`);
  await run(
    'magic_link_tokens',
    sql`delete from magic_link_tokens where expires_at < now() - interval '1 day'`,
  );
  await run('oauth_records', sql`delete from oauth_records where expires_at < now() - interval '1 day'`);
  await run(
    'idempotency_keys',
    sql`delete from idempotency_keys where created_at < now() - interval '24 hours'`,
  );
  await run('events', sql`delete from events where created_at < now() - interval '7 days'`);
  await run(
    'audit_entries',
    sql`delete from audit_entries a
         using subscriptions s join plans p on p.id = s.plan_id
        where s.org_id = a.org_id
          and a.created_at < now() - make_interval(days => p.audit_retention_days)`,
  );
  return counts;
}
