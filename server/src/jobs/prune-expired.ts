import type { Sql } from '@beckon/db';

/** Default of OAUTH_CLIENT_UNUSED_HOURS (env.ts). */
const UNUSED_CLIENT_HOURS = 24;

/**
 * Hourly housekeeping: drops credentials and records past their use, dynamically registered
 * OAuth clients left unused and rate-limit counters of past windows. Organizations' own data
 * (items, comments, attachments, audit entries) goes by their retention periods, in batches:
 * modules/retention/apply-retention.ts. Safe to run twice.
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
  // Each organization's own are purged as it adds more; these are the rest.
  await run('mcp_tasks', sql`delete from mcp_tasks where expires_at < now()`);
  await run('gate_grants', sql`delete from gate_grants where expires_at < now()`);
  // A used mail link's record matters only while the link could still be used.
  await run('email_link_uses', sql`delete from email_link_uses where expires_at < now() - interval '1 day'`);
  await run('chat_link_codes', sql`delete from chat_link_codes where expires_at < now()`);
  // A chat app redelivers an update or interaction within minutes; a day is well past that, and
  // Discord's signed timestamps older than 5 minutes are refused anyway.
  await run(
    'chat_inbound_seen',
    sql`delete from chat_inbound_seen where created_at < now() - interval '1 day'`,
  );
  // Twilio sends a message to the webhook again only within minutes: a day of MessageSids is plenty.
  await run('twilio_inbound', sql`delete from twilio_inbound where created_at < now() - interval '1 day'`);
  return counts;
}
