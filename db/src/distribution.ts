/**
 * Where each table would live on a distributed PostgreSQL (Citus), by organization: the plan of
 * docs/deployment.md ("Past one PostgreSQL"). tests/src/structure/distribution.test.ts checks it
 * against the live catalog, and `pnpm citus:plan` prints the calls it implies.
 *
 * - `distributed`: sharded by the organization (`org_id`; `organizations` by its own `id`), all
 *   co-located with `organizations`, so one organization's rows sit on one node.
 * - `reference`: copied to every node; distributed tables may reference them.
 * - `local`: kept on the coordinator only (not organization data, or machinery).
 *
 * The order matters: a table comes after the tables it references, so the calls can run in it.
 */
import { DISTRIBUTION_PENDING, DISTRIBUTION_RULES, type DistributionRule } from './distribution-pending';

export {
  DISTRIBUTION_PENDING,
  DISTRIBUTION_RULES,
  type DistributionRule,
  type PendingViolation,
} from './distribution-pending';

export type TableClass = 'distributed' | 'reference' | 'local';

export type TablePlacement = {
  /** `schema.table`, or the bare name in `public`. */
  table: string;
  class: TableClass;
  /** The distribution column of a distributed table; `org_id` unless named. */
  column?: string;
  /** Why, where the class is not obvious from the table. */
  reason?: string;
};

/** The table every distributed table is co-located with. */
export const COLOCATION_ROOT = 'organizations';

const distributed = (table: string, reason?: string): TablePlacement => ({
  table,
  class: 'distributed',
  ...(reason ? { reason } : {}),
});
const reference = (table: string, reason: string): TablePlacement => ({ table, class: 'reference', reason });
const local = (table: string, reason: string): TablePlacement => ({ table, class: 'local', reason });

export const TABLE_DISTRIBUTION: readonly TablePlacement[] = [
  reference('plans', 'the catalogue of plans, read by every subscription'),
  reference('users', 'a person belongs to several organizations; distributed tables reference users.id'),
  reference(
    'roles',
    'system roles (org_id null) are shared; organization roles are few, deleted with their organization in code (no foreign key)',
  ),

  { table: 'organizations', class: 'distributed', column: 'id', reason: 'the co-location root, by its id' },
  distributed('agents'),
  distributed(
    'api_keys',
    'found by the organization its key names and the hash (legacy_credentials for older keys)',
  ),
  distributed('escalation_policies'),
  distributed('channels'),
  distributed('items'),
  distributed('attachments'),
  distributed('audit_entries'),
  distributed('audit_heads'),
  distributed('comments'),
  distributed('webhooks'),
  distributed('delivery_attempts'),
  distributed('devices', 'a device token is unique per organization: one row in each of its person’s'),
  distributed('push_queue'),
  distributed('chat_inbound_seen'),
  distributed('chat_link_codes', 'looked up by code hash today: needs the organization with the code'),
  distributed('discord_connections'),
  distributed('discord_messages'),
  distributed('discord_routes'),
  distributed('discord_user_links'),
  distributed('email_digest_entries'),
  distributed('email_settings'),
  distributed('events', 'numbered per organization by its counter, after commit (the sequencer)'),
  distributed('event_counters'),
  distributed('gate_grants'),
  distributed('idempotency_keys'),
  distributed('inbound_webhooks', 'found like API keys: the organization its token names, and the hash'),
  distributed(
    'invitations',
    'found by the organization its code names and the hash (legacy_credentials for older codes)',
  ),
  distributed('mcp_tasks'),
  distributed('memberships', 'also read by user_id (the organization switcher): a fan-out query'),
  distributed('monthly_allotments'),
  distributed('monthly_usage_shards'),
  distributed('out_of_office'),
  distributed('receipt_keys'),
  distributed('retention_policies'),
  distributed('schedules'),
  distributed('schedule_overrides'),
  distributed('settings'),
  distributed('slack_connections'),
  distributed('slack_messages'),
  distributed('slack_routes'),
  distributed('slack_user_links'),
  distributed('subscriptions'),
  distributed('teams'),
  distributed('team_members', "carries its team's org_id, so a team and its members sit together"),
  distributed('telegram_connections'),
  distributed('telegram_messages'),
  distributed('telegram_routes'),
  distributed('telegram_user_links'),
  distributed('teams_connections', 'Microsoft Teams, like the other chat connections'),
  distributed('teams_conversations'),
  distributed('teams_messages'),
  distributed('teams_routes'),
  distributed('teams_user_links'),
  distributed('templates'),
  distributed('twilio_connections'),
  distributed('twilio_inbound', 'deduplicates provider message ids across organizations'),
  distributed('twilio_messages'),
  distributed('phone_numbers'),
  distributed('working_hours'),

  local(
    'legacy_credentials',
    'the organization of API keys, inbound tokens and invitation codes made before they named it, by hash',
  ),
  local(
    'organization_slugs',
    'keeps slugs unique across organizations, and finds one by slug, before any organization is known',
  ),
  local('sessions', "a person's sign-in, found by token hash; points at the organization selected"),
  local('webauthn_challenges', 'short-lived sign-in challenges, beside sessions'),
  local('magic_link_tokens', 'sign-in links found by token hash before any organization is known'),
  local('oauth_records', 'OAuth provider records found by id hash'),
  local('identity_links', "a person's external identities (references users, a reference table)"),
  local('passkeys', "a person's credentials (references users, a reference table)"),
  local('notification_preferences', "a person's preferences across organizations"),
  local('rate_limit_counters', 'keyed by credential or address, not by organization'),
  local('email_link_uses', 'single-use nonces of mailed links, by nonce'),
  local('blob_deletions', 'storage keys waiting for deletion, swept across organizations'),
  local('worker_heartbeats', 'liveness of worker pools'),
  local('drizzle.__drizzle_migrations', 'migration bookkeeping'),
  local('graphile_worker.migrations', 'the job queue: one queue for every organization'),
  local('graphile_worker._private_job_queues', 'the job queue'),
  local('graphile_worker._private_jobs', 'the job queue'),
  local('graphile_worker._private_known_crontabs', 'the job queue'),
  local('graphile_worker._private_tasks', 'the job queue'),
];

/** The distribution column of a distributed table. */
export const distributionColumn = (placement: TablePlacement): string => placement.column ?? 'org_id';

const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The Citus calls that distribute the schema, in the declared order (`pnpm citus:plan`). */
export function citusPlan(placements: readonly TablePlacement[] = TABLE_DISTRIBUTION): string[] {
  return placements.flatMap((placement) => {
    if (placement.class === 'reference')
      return [`select create_reference_table(${quoted(placement.table)});`];
    if (placement.class === 'local') return [];
    const args = [quoted(placement.table), quoted(distributionColumn(placement))];
    if (placement.table !== COLOCATION_ROOT) args.push(`colocate_with => ${quoted(COLOCATION_ROOT)}`);
    return [`select create_distributed_table(${args.join(', ')});`];
  });
}

/** What must change before the move: per rule, how many violations and in how many tables. */
export function pendingSummary(): { rule: DistributionRule; violations: number; tables: number }[] {
  return DISTRIBUTION_RULES.map((rule) => {
    const pending = DISTRIBUTION_PENDING.filter((violation) => violation.rule === rule);
    return { rule, violations: pending.length, tables: new Set(pending.map(({ table }) => table)).size };
  });
}
