import { uuidv7 } from 'uuidv7';
import type { Actor, Identity } from '../../../auth/identity';
import { actorOf } from '../../../auth/identity';
import type { Deps } from '../../../deps';
import { recordChange } from '../changes/record-change';
import { actorNameSql, auditNamesSql } from '../rows/item-names';
import { findItem } from '../rows/item-queries';

type CommentRow = {
  id: string;
  item_id: string;
  body: string;
  actor_type: Actor['type'];
  actor_id: string | null;
  actor_name: string | null;
  created_at: Date;
};

const commentView = (row: CommentRow) => ({ ...row, created_at: row.created_at.toISOString() });

export async function listComments(deps: Deps, identity: Identity, itemId: string) {
  await findItem(deps.sql, identity, itemId);
  const rows = await deps.sql<CommentRow[]>`
    select c.id, c.item_id, c.body, c.actor_type, c.actor_id, ${deps.sql.unsafe(actorNameSql('c.'))} as actor_name,
           c.created_at
      from comments c
     where c.item_id = ${itemId} and c.org_id = ${identity.orgId} order by c.id`;
  return rows.map(commentView);
}

export async function addComment(deps: Deps, identity: Identity, itemId: string, body: string) {
  const actor = actorOf(identity);
  const row = await deps.sql.begin(async (tx) => {
    const item = await findItem(tx, identity, itemId);
    const [comment] = await tx<CommentRow[]>`
      insert into comments (id, org_id, item_id, body, actor_type, actor_id)
      values (${uuidv7()}, ${identity.orgId}, ${itemId}, ${body}, ${actor.type}, ${actor.id})
      returning id, item_id, body, actor_type, actor_id, ${tx.unsafe(actorNameSql('comments.'))} as actor_name, created_at`;
    await recordChange(tx, {
      row: item,
      action: 'comment.create',
      actor,
      event: 'item.commented',
      data: { comment_id: comment?.id },
    });
    return comment as CommentRow;
  });
  return commentView(row);
}

type TimelineRow = Omit<CommentRow, 'item_id' | 'body'> & {
  entry_type: 'event' | 'comment';
  action: string | null;
  body: string | null;
  data: Record<string, unknown> | null;
  names: Record<string, string>;
};

/** Audit events and comments of an item, oldest first (a comment is shown once, as a comment). */
export async function timeline(deps: Deps, identity: Identity, itemId: string) {
  await findItem(deps.sql, identity, itemId);
  const rows = await deps.sql<TimelineRow[]>`
    select 'event' as entry_type, a.id, a.action, null as body, a.actor_type, a.actor_id,
           ${deps.sql.unsafe(actorNameSql('a.'))} as actor_name, a.data,
           ${deps.sql.unsafe(auditNamesSql('a.'))} as names, a.created_at
      from audit_entries a
     where a.item_id = ${itemId} and a.org_id = ${identity.orgId} and a.action <> 'comment.create'
    union all
    select 'comment', c.id, null, c.body, c.actor_type, c.actor_id, ${deps.sql.unsafe(actorNameSql('c.'))},
           null, '{}'::jsonb, c.created_at
      from comments c
     where c.item_id = ${itemId} and c.org_id = ${identity.orgId}
     order by created_at, id`;
  return rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() }));
}
