/**
 * Statements that refer to distributed tables without naming one organization, each with why
 * that is acceptable on a Citus coordinator (a multi-shard statement) or what it waits for. The
 * query rule (statement-rule.ts, checked over the test run: tests/src/harness/statement-capture.ts)
 * accepts these and fails on any other. `matches` is tested against the normalized statement
 * (normalizeStatement: lower case, one line, no double quotes or casts).
 */
import { TABLE_DISTRIBUTION } from './distribution';
import { normalizeStatement } from './statement-rule';

export type CrossOrgStatement = {
  /** Where the statement is written. */
  source: string;
  matches: RegExp;
  /** The distributed tables it may leave without an organization. */
  tables: readonly string[];
  reason: string;
};

/** Every distributed table: for the statements that go through all of them. */
const DISTRIBUTED = TABLE_DISTRIBUTION.filter((p) => p.class === 'distributed').map((p) => p.table);

export const CROSS_ORG_STATEMENTS: readonly CrossOrgStatement[] = [
  {
    source: 'db/migrations/0040_event_sequencer.sql',
    matches:
      /^insert into event_counters \(org_id, seq\) select org_id, max\(seq\) from events group by org_id$/,
    tables: ['events'],
    reason:
      'the migration that gave each organization its own event counter starts it from its last event, once, before any move (a multi-shard read)',
  },
  {
    source: "server/src/realtime/sequencer.ts (the worker's sweep, every SEQUENCER_SWEEP_MS)",
    matches:
      /^select org_id from events where seq is null and created_at < now\(\) - make_interval\(secs => \$1\) union select org_id from audit_entries where seq is null and content_hash is not null and created_at < now\(\) - make_interval\(secs => \$2\)$/,
    tables: ['events', 'audit_entries'],
    reason:
      'events and audit entries whose writer stopped between commit and sequencing: a multi-shard read of two small partial indexes (rows waiting for more than a second), once a second per worker',
  },
  {
    source: 'db/migrations/0039_org_in_tokens.sql',
    matches:
      /^insert into legacy_credentials \(token_hash, org_id\) select token_hash, org_id from api_keys union all select token_hash, org_id from inbound_webhooks on conflict do nothing$/,
    tables: ['api_keys', 'inbound_webhooks'],
    reason:
      'the migration that made tokens name their organization records the organization of every older key and inbound token, once, before any move (a multi-shard read)',
  },
  {
    source: 'db/migrations/0041_org_scoped_lookups.sql',
    matches: new RegExp(
      [
        '^insert into organization_slugs \\(slug, org_id\\) select slug, id from organizations$',
        '^insert into legacy_credentials \\(token_hash, org_id\\) select code_hash, org_id from invitations on conflict do nothing$',
      ].join('|'),
    ),
    tables: ['organizations', 'invitations'],
    reason:
      'the migration that moved slug uniqueness to the coordinator and made invitation codes name their organization records every slug, and the organization of every invitation code issued before, once, before any move (a multi-shard read)',
  },
  {
    source: 'server/src/jobs/job-org.ts',
    matches: /^select org_id from (items|webhooks|push_queue) where id = \$1$/,
    tables: ['items', 'webhooks', 'push_queue'],
    reason:
      'a job queued before its payload carried org_id: its organization, read once by the id of the row it names (a fan-out by primary key, once per such job)',
  },
  {
    source: 'server/src/modules/push/push.service.ts',
    matches:
      /^delete from push_queue q using devices d where d\.device_token = |^delete from devices where device_token = /,
    tables: ['devices', 'push_queue'],
    reason:
      "a device token has a row in each organization its person registered it in (unique (org_id, device_token)): registering it removes the rows of anyone else, and unregistering the caller's rows, in every organization (a device changing hands; rare, a person's own device)",
  },
  {
    source: 'server/src/jobs/prune-expired.ts (the hourly prune_expired cron)',
    matches:
      /^delete from (idempotency_keys|events|mcp_tasks|gate_grants|chat_link_codes|chat_inbound_seen|twilio_inbound) where (created_at|expires_at) < /,
    tables: [
      'idempotency_keys',
      'events',
      'mcp_tasks',
      'gate_grants',
      'chat_link_codes',
      'chat_inbound_seen',
      'twilio_inbound',
    ],
    reason:
      "housekeeping of every organization by age, once an hour: a multi-shard DELETE that Citus runs on each shard in parallel, each shard's rows by its own index",
  },
  {
    source:
      'server/src/modules/retention/apply-retention.ts (organizationsDue, the hourly apply_retention cron)',
    matches:
      /^select s\.org_id, r\.items_days, .* from subscriptions s join plans p on p\.id = s\.plan_id join organizations o on o\.id = s\.org_id/,
    tables: ['subscriptions', 'organizations', 'retention_policies', 'audit_heads', 'audit_entries'],
    reason:
      "which organizations have data past their retention periods, once an hour: a multi-shard read co-located by org_id (every join and sub-select pairs org_id), then each organization's batches filter on its org_id",
  },
  {
    source:
      'server/src/modules/audit/audit-checkpoints.ts (organizationsAdvanced, the audit_checkpoints cron)',
    matches:
      /^select h\.org_id from audit_heads h join organizations o on o\.id = h\.org_id .* where h\.org_id > \$1 and not exists \( select \S+ from audit_entries a where a\.org_id = h\.org_id /,
    tables: ['audit_heads', 'organizations', 'audit_entries'],
    reason:
      "which organizations' audit chains advanced since their last checkpoint, once per AUDIT_CHECKPOINT_MINUTES: a multi-shard read co-located by org_id (the join and the sub-select pair org_id), a page of organizations at a time; each organization's checkpoint then filters on its org_id",
  },
  {
    source: 'server/src/modules/accounts/account.service.ts, accounts/users.ts, retention/person-export.ts',
    matches: new RegExp(
      [
        '^select (o\\.id, o\\.name, .*|m\\.org_id, o\\.name as org_name, .*) from memberships m join organizations o on o\\.id = m\\.org_id join roles r on r\\.id = m\\.role_id where m\\.user_id = \\$1',
        '^select org_id from memberships where user_id = \\$1$',
        '^select o\\.id from organizations o join memberships m on m\\.org_id = o\\.id where m\\.user_id = \\$1 and o\\.is_personal',
      ].join('|'),
    ),
    tables: ['memberships', 'organizations'],
    reason:
      "a person's organizations (the switcher, their personal workspace at sign-in, their export): memberships by user_id, a fan-out to every shard (memberships could be mirrored in a small coordinator table by user_id)",
  },
  {
    source: 'server/src/modules/retention/person-export.ts',
    matches: /^select .* from (items|comments) where org_id = any\(\$\d+\)/,
    tables: ['items', 'comments'],
    reason:
      "a person's own export: what they wrote or answered in each of their organizations, one multi-shard read per export (rare)",
  },
  {
    source: 'server/src/modules/retention/erase-person.ts',
    matches: new RegExp(
      [
        '^delete from \\w+ where (user_id|granted_by) = \\$1$',
        '^update \\w+ set \\w+ = \\$2 where \\w+ = \\$1$',
        '^delete from invitations where lower\\(email\\) = lower\\(\\$1\\)$',
        '^update events set data = jsonb_set\\(',
        '^select m\\.org_id(, o\\.is_personal.*)? from memberships m join (roles|organizations) .* where m\\.user_id = \\$1',
      ].join('|'),
    ),
    tables: DISTRIBUTED,
    reason:
      'erasing a person reaches every organization they belonged to (each table referring to users, read from the catalog): a rare multi-shard transaction',
  },
  {
    source: 'server/src/http/metrics.ts (the open-items gauge)',
    matches: /^select count\(\*\) as n from items where status = \$1$/,
    tables: ['items'],
    reason:
      'the service-wide count of open items, read at each metrics scrape: a multi-shard aggregate Citus sums from each shard (an index-only count per shard)',
  },
  {
    source: 'db/migrations/0034_team_keys.sql',
    matches: /^update team_members tm set org_id = t\.org_id from teams t where t\.id = tm\.team_id$/,
    tables: ['team_members', 'teams'],
    reason:
      'the migration that gave team members their organization fills the column once from their teams, before any distribution (a migration, run on one database)',
  },
];

/** Of the tables a statement leaves without an organization, those no entry matching it lists. */
export function unlistedTables(statement: string, tables: readonly string[]): string[] {
  const normalized = normalizeStatement(statement);
  const listed = new Set(
    CROSS_ORG_STATEMENTS.filter((entry) => entry.matches.test(normalized)).flatMap((entry) => entry.tables),
  );
  return tables.filter((table) => !listed.has(table));
}
