import type { ItemView, UpdateItemInput } from '@beckon/contracts/items/item.contract';
import type { Identity } from '../../../auth/identity';
import { actorOf } from '../../../auth/identity';
import type { Deps } from '../../../deps';
import { recordChange } from '../changes/record-change';
import { channelName, expirySchedule, findItem, futureDeadline, RETURNING } from '../rows/item-queries';
import { type ItemRow, itemView } from '../rows/item-view';

export async function updateItem(deps: Deps, identity: Identity, input: UpdateItemInput): Promise<ItemView> {
  const { sql } = deps;
  const { id, ...fields } = input;
  futureDeadline(fields.deadline_at);
  const channel =
    fields.channel_id === undefined ? undefined : await channelName(sql, identity.orgId, fields.channel_id);
  const row = await sql.begin(async (tx) => {
    await findItem(tx, identity, id, true);
    const set: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined) set[key] = key === 'metadata' ? tx.json(value as never) : value;
    }
    const [updated] = await tx<ItemRow[]>`
      update items set ${tx(set)}, updated_at = now()
       where org_id = ${identity.orgId} and id = ${id} returning ${tx.unsafe(RETURNING)}`;
    const row = { ...(updated as ItemRow), channel_name: channel ?? null };
    if (channel === undefined) row.channel_name = await channelName(tx, identity.orgId, row.channel_id);
    await recordChange(tx, {
      row,
      action: 'item.update',
      actor: actorOf(identity),
      event: 'item.updated',
      data: { fields: Object.keys(set) },
      schedule: ['deadline_at' in set ? expirySchedule(tx, row) : null],
    });
    return row;
  });
  return itemView(row);
}
