import type { Sql } from '@beckon/db';

/** Rows read per round trip while streaming one kind. */
const BATCH = 500;

/**
 * What an organization export holds, kind by kind, each line `{"type": kind, ...row}`: its
 * settings and people first, then its items and what hangs off them, then its audit chain.
 * Columns are listed, never `*`: secrets (callback and webhook secrets, token hashes, keys) and
 * storage keys stay out.
 */
const KINDS = {
  organization: (sql: Sql, orgId: string) => sql`
    select id, name, slug, metadata, is_personal, created_at from organizations where id = ${orgId}`,
  retention_policy: (sql: Sql, orgId: string) => sql`
    select items_days, archived_items_days, comments_days, attachments_days, audit_days, updated_at
      from retention_policies where org_id = ${orgId}`,
  member: (sql: Sql, orgId: string) => sql`
    select m.user_id, u.email, u.name, r.name as role, m.created_at as joined_at
      from memberships m join users u on u.id = m.user_id join roles r on r.id = m.role_id
     where m.org_id = ${orgId} order by m.created_at`,
  role: (sql: Sql, orgId: string) => sql`
    select id, name, description, permissions, created_at from roles where org_id = ${orgId} order by id`,
  team: (sql: Sql, orgId: string) => sql`
    select t.id, t.name, t.slug, coalesce(array_agg(tm.user_id) filter (where tm.user_id is not null), '{}') as members
      from teams t left join team_members tm on tm.org_id = t.org_id and tm.team_id = t.id
     where t.org_id = ${orgId} group by t.org_id, t.id order by t.id`,
  channel: (sql: Sql, orgId: string) => sql`
    select id, name, mode, description, escalation, created_at from channels where org_id = ${orgId} order by id`,
  template: (sql: Sql, orgId: string) => sql`
    select id, name, description, fields, created_at from templates where org_id = ${orgId} order by id`,
  setting: (sql: Sql, orgId: string) => sql`
    select key, value, updated_at from settings where org_id = ${orgId} order by key`,
  webhook: (sql: Sql, orgId: string) => sql`
    select id, name, url, events, active, created_at from webhooks where org_id = ${orgId} order by id`,
  item: (sql: Sql, orgId: string) => sql`
    select id, title, message, level, priority, channel_id, tags, form, metadata, action, action_digest,
           receipt, callback_url, deadline_at, status, response, responses, answered_at,
           answered_by_type, answered_by_id, answered_via, acked_at, snoozed_until, pinned, archived_at,
           assignees, created_by_type, created_by_id, agent_id, created_at, updated_at
      from items where org_id = ${orgId} order by id`,
  comment: (sql: Sql, orgId: string) => sql`
    select id, item_id, body, actor_type, actor_id, created_at from comments where org_id = ${orgId} order by id`,
  attachment: (sql: Sql, orgId: string) => sql`
    select id, item_id, filename, content_type, size, sha256, created_at
      from attachments where org_id = ${orgId} order by id`,
  audit_entry: (sql: Sql, orgId: string) => sql`
    select seq, id, item_id, action, actor_type, actor_id, data, created_at, prev_hash, hash
      from audit_entries where org_id = ${orgId} order by seq nulls first, id`,
} as const;

export type ExportKind = keyof typeof KINDS;

/**
 * The organization's data as JSON Lines, streamed kind after kind (a cursor each, BATCH rows per
 * round trip), so memory stays flat whatever its size. The last line, `{"type": "end", counts}`,
 * tells a complete file from a cut one.
 */
export async function* organizationLines(sql: Sql, orgId: string): AsyncGenerator<string> {
  const counts: Record<string, number> = {};
  for (const [type, query] of Object.entries(KINDS)) {
    counts[type] = 0;
    for await (const rows of query(sql, orgId).cursor(BATCH)) {
      for (const row of rows) yield `${JSON.stringify({ type, ...row })}\n`;
      counts[type] += rows.length;
    }
  }
  yield `${JSON.stringify({ type: 'end', org_id: orgId, counts })}\n`;
}
