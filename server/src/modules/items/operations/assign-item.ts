import { type Assignee, assigneeKey } from '@beckon/contracts/assignment/assignment.contract';
import type { ItemView } from '@beckon/contracts/items/item.contract';
import { can } from '@beckon/contracts/permissions';
import type { Queryable } from '@beckon/db';
import { type Actor, actorOf, type Identity } from '../../../auth/identity';
import { OrgFacts } from '../../../caches/org-facts';
import type { Deps } from '../../../deps';
import { AppError } from '../../../errors';
import { checkAssignment, onCallAuditData, peopleOf, withOnCall } from '../../assignment/assignees';
import { delegationAuditData, notificationParts, type Reached, reachedOf } from '../changes/notify-people';
import { recordChange } from '../changes/record-change';
import { findItem, RETURNING } from '../rows/item-queries';
import { type ItemRow, itemView } from '../rows/item-view';

type Change = {
  set: Record<string, unknown>;
  action: string;
  data: Record<string, unknown>;
  /** Who to notify of it once written, when it is still open. */
  notify?: Reached;
} | null;

/**
 * One change of an item's assignment under its row lock, with its audit entry, its stream event
 * (`item.updated`) and webhooks, in one transaction; `decide` sees the locked row and answers the
 * columns to set (null: nothing changes, nothing is recorded) and who to notify.
 */
async function changeAssignment(
  deps: Deps,
  identity: Identity,
  id: string,
  decide: (row: ItemRow, actor: Actor, tx: Queryable) => Change | Promise<Change>,
): Promise<ItemView> {
  const actor = actorOf(identity);
  const webhooks = await OrgFacts.has(deps, 'webhooks', identity.orgId);
  const row = await deps.sql.begin(async (tx) => {
    const current = await findItem(tx, identity, id, true);
    const change = await decide(current, actor, tx);
    if (!change) return current;
    const [updated] = await tx<ItemRow[]>`
      update items set ${tx(change.set)}, updated_at = now()
       where org_id = ${current.org_id} and id = ${id} returning ${tx.unsafe(RETURNING)}`;
    const row = { ...(updated as ItemRow), channel_name: current.channel_name };
    const notify =
      change.notify && row.status === 'open'
        ? await notificationParts(deps, tx, row, change.notify, 'assigned')
        : [];
    await recordChange(tx, {
      row,
      action: change.action,
      actor,
      event: 'item.updated',
      data: change.data,
      webhooks,
      notify,
    });
    return row;
  });
  return itemView(row);
}

/** Replaces the assignees; the people it adds (who were not already reached) are notified. */
export async function assignItem(
  deps: Deps,
  identity: Identity,
  input: { id: string; assignees: Assignee[] },
): Promise<ItemView> {
  await checkAssignment(deps.sql, identity.orgId, { assignees: input.assignees });
  const { assignees, onCall } = await withOnCall(deps.sql, identity.orgId, input.assignees, deps.clock());
  const keys = assignees.map(assigneeKey);
  return changeAssignment(deps, identity, input.id, async (row, actor, tx) => {
    if (row.assignee_keys.join('\n') === keys.join('\n')) return null;
    const [now, earlier] = await Promise.all([
      peopleOf(tx, row.org_id, assignees),
      peopleOf(tx, row.org_id, row.assignees),
    ]);
    const added = now.filter((person) => !earlier.includes(person) && person !== actor.id);
    const notify = await reachedOf(tx, row.org_id, added, deps.clock());
    return {
      set: { assignees: deps.sql.json(assignees as never), assignee_keys: keys },
      action: 'item.assign',
      data: {
        assignees,
        previous: row.assignees,
        ...onCallAuditData(onCall),
        ...delegationAuditData(notify),
      },
      notify,
    };
  });
}

/**
 * Claims an open item for the caller. Under the row lock, so of two claims at once exactly one
 * wins: the other finds it claimed (409 naming who holds it). The holder's second claim changes nothing.
 */
export function claimItem(deps: Deps, identity: Identity, id: string): Promise<ItemView> {
  return changeAssignment(deps, identity, id, (row, actor) => {
    if (row.status !== 'open')
      throw AppError.conflict('invalid_status', `cannot claim an item that is ${row.status}`, {
        status: row.status,
      });
    if (row.claimed_by_id === actor.id && row.claimed_by_type === actor.type) return null;
    if (row.claimed_by_id) {
      throw AppError.conflict('claimed', 'item is claimed by someone else', {
        claimed_by: { type: row.claimed_by_type, id: row.claimed_by_id },
      });
    }
    return {
      set: { claimed_by_type: actor.type, claimed_by_id: actor.id, claimed_at: deps.clock() },
      action: 'item.claim',
      data: {},
    };
  });
}

/** Releases the claim: the holder's own, or anyone's for a holder of `org.manage`. */
export function unclaimItem(deps: Deps, identity: Identity, id: string): Promise<ItemView> {
  return changeAssignment(deps, identity, id, (row, actor) => {
    if (!row.claimed_by_id) return null;
    const own = row.claimed_by_id === actor.id && row.claimed_by_type === actor.type;
    if (!own && !can(identity.permissions, 'org.manage')) throw AppError.permissionDenied('org.manage');
    return {
      set: { claimed_by_type: null, claimed_by_id: null, claimed_at: null },
      action: 'item.unclaim',
      data: { claimed_by: { type: row.claimed_by_type, id: row.claimed_by_id } },
    };
  });
}
