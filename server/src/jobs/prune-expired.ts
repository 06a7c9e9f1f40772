import type { Sql } from '@beckon/db';

/** Default of OAUTH_CLIENT_UNUSED_HOURS (env.ts). */
const UNUSED_CLIENT_HOURS = 24;

/**
 * Hourly housekeeping: drops credentials and records past their use, dynamically registered
 * OAuth clients left unused, rate-limit counters of past windows, and audit entries past the
 * retention period of each organization's plan. Safe to run twice.
 */
export async function pruneExpired(
  sql: Sql,
  options: { unusedClientHours?: number } = {},
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const run = async (name: string, query: Promise<{ count: number }>) => {
    counts[name] = (await query).count;
  };
  await run('sessions', sql`delete from sessions where expires_at < now() - interval '1 day'`);
  await run(
    'magic_link_tokens',
    sql`delete from magic_link_tokens where expires_at < now() - interval '1 day'`,
  );
  // WebAuthn challenges are answered within minutes; those never answered go.
  await run('webauthn_challenges', sql`delete from webauthn_challenges where expires_at < now()`);
  await run('oauth_records', sql`delete from oauth_records where expires_at < now() - interval '1 day'`);
  // Registration is open to anyone (RFC 7591): a client that nothing (grant, code, token) has
  // referred to for OAUTH_CLIENT_UNUSED_HOURS since its registration is removed, so registering
  // cannot fill the table. A client whose grants all ended goes the same way; it registers again.
  await run(
    'oauth_clients',
    sql`delete from oauth_records c
         where c.model = 'Client'
           and c.created_at < now() - make_interval(hours => ${options.unusedClientHours ?? UNUSED_CLIENT_HOURS})
           and not exists (select 1 from oauth_records r
                            where r.client_id = c.client_id and r.model <> 'Client')`,
  );
  await run(
    'rate_limit_counters',
    sql`delete from rate_limit_counters where window_end < now() - interval '1 minute'`,
  );
  await run(
    'idempotency_keys',
    sql`delete from idempotency_keys where created_at < now() - interval '24 hours'`,
  );
  await run('events', sql`delete from events where created_at < now() - interval '7 days'`);
  // A used mail link's record matters only while the link could still be used.
  await run('email_link_uses', sql`delete from email_link_uses where expires_at < now() - interval '1 day'`);
  counts.audit_entries = await pruneAudit(sql);
  return counts;
}

/**
 * Audit entries past the retention period of each organization's plan. What goes is always the
 * start of an organization's chain (every entry up to the last one past the period), and the
 * last entry removed becomes the chain's anchor in the same statement, so the rest still verifies
 * (contracts/src/proofs/audit-chain.ts) and a removal by anyone else does not.
 */
async function pruneAudit(sql: Sql): Promise<number> {
  const [result] = await sql<{ n: number }[]>`
    with retention as (
      select s.org_id, now() - make_interval(days => p.audit_retention_days) as before
        from subscriptions s join plans p on p.id = s.plan_id),
    cut as (
      select a.org_id, max(a.seq) as seq
        from audit_entries a join retention r on r.org_id = a.org_id
       where a.created_at < r.before group by a.org_id),
    gone as (
      delete from audit_entries a using retention r
       where r.org_id = a.org_id
         and ((a.seq is null and a.created_at < r.before)
              or a.seq <= (select c.seq from cut c where c.org_id = a.org_id))
      returning a.org_id, a.seq, a.hash),
    last as (
      select distinct on (org_id) org_id, seq, hash from gone
       where seq is not null order by org_id, seq desc),
    anchored as (
      update audit_heads h set anchor_seq = l.seq, anchor_hash = l.hash
        from last l where h.org_id = l.org_id and l.seq > h.anchor_seq)
    select count(*)::int as n from gone`;
  return result?.n ?? 0;
}
