import type { PersonExport } from '@beckon/contracts/retention/privacy.contract';
import type { Queryable } from '@beckon/db';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';

type ItemRow = {
  id: string;
  org_id: string;
  title: string;
  message: string | null;
  level: PersonExport['items_created'][number]['level'];
  status: PersonExport['items_created'][number]['status'];
  response: unknown;
  answered_at: Date | null;
  answered_by_type: 'user' | 'agent' | 'system' | null;
  answered_by_id: string | null;
  created_at: Date;
  responses: { user_id: string | null; values: unknown; approves?: boolean; at: string }[];
};

const ITEM_COLUMNS = `id, org_id, title, message, level, status, response, answered_at, answered_by_type,
  answered_by_id, created_at, responses`;

const exportedItem = (row: ItemRow) => ({
  id: row.id,
  org_id: row.org_id,
  title: row.title,
  message: row.message,
  level: row.level,
  status: row.status,
  response: row.response ?? null,
  answered_at: row.answered_at?.toISOString() ?? null,
  answered_by: row.answered_by_type ? { type: row.answered_by_type, id: row.answered_by_id } : null,
  created_at: row.created_at.toISOString(),
});

/**
 * Everything Beckon holds about one person in the given organizations: their profile, their
 * memberships, the items they created and those they answered (with each answer they gave), and
 * their comments. Items are scanned per organization: an export is rare and asked for by hand.
 */
export async function personExport(sql: Queryable, userId: string, orgIds: string[]): Promise<PersonExport> {
  const [profile] = await sql<{ id: string; email: string; name: string | null; created_at: Date }[]>`
    select id, email, name, created_at from users where id = ${userId}`;
  if (!profile) throw AppError.notFound();
  const memberships = await sql<PersonExport['memberships']>`
    select m.org_id, o.name as org_name, r.name as role
      from memberships m join organizations o on o.id = m.org_id join roles r on r.id = m.role_id
     where m.user_id = ${userId} and m.org_id = any(${orgIds}::uuid[]) order by m.created_at`;
  const created = await sql.unsafe<ItemRow[]>(
    `select ${ITEM_COLUMNS} from items
      where org_id = any($2::uuid[]) and created_by_type = 'user' and created_by_id = $1 order by id`,
    [userId, orgIds],
  );
  const answered = await sql.unsafe<ItemRow[]>(
    `select ${ITEM_COLUMNS} from items
      where org_id = any($2::uuid[])
        and (answered_by_id = $1
             or exists (select 1 from jsonb_array_elements(responses) r where r->>'user_id' = $1::text))
      order by id`,
    [userId, orgIds],
  );
  const comments = await sql<{ id: string; item_id: string; body: string; created_at: Date }[]>`
    select id, item_id, body, created_at from comments
     where org_id = any(${orgIds}::uuid[]) and actor_type = 'user' and actor_id = ${userId} order by id`;
  return {
    exported_at: new Date().toISOString(),
    profile: { ...profile, created_at: profile.created_at.toISOString() },
    memberships: [...memberships],
    items_created: created.map(exportedItem),
    items_answered: answered.map(exportedItem),
    answers: answered.flatMap((item) => answersOf(item, userId)),
    comments: comments.map((c) => ({ ...c, created_at: c.created_at.toISOString() })),
  };
}

/** The person's answers to an item: its recorded responses, else the single answer that closed it. */
function answersOf(item: ItemRow, userId: string): PersonExport['answers'] {
  const own = item.responses.filter((r) => r.user_id === userId);
  if (own.length > 0) {
    return own.map((r) => ({ item_id: item.id, values: r.values, approves: r.approves ?? null, at: r.at }));
  }
  if (item.answered_by_id !== userId || !item.answered_at) return [];
  return [{ item_id: item.id, values: item.response, approves: null, at: item.answered_at.toISOString() }];
}

/** GET /api/me/export: the signed-in person, in every organization they belong to. */
export async function exportMe(deps: Deps, identity: Identity): Promise<PersonExport> {
  const rows = await deps.sql<{ org_id: string }[]>`
    select org_id from memberships where user_id = ${identity.userId}`;
  return personExport(
    deps.sql,
    identity.userId,
    rows.map((r) => r.org_id),
  );
}

/** GET /api/admin/users/:user_id/export (org.manage): a member, in this organization only. */
export async function exportMember(deps: Deps, identity: Identity, userId: string): Promise<PersonExport> {
  const [member] = await deps.sql`
    select 1 from memberships where org_id = ${identity.orgId} and user_id = ${userId}`;
  if (!member) throw AppError.notFound();
  return personExport(deps.sql, userId, [identity.orgId]);
}
