import type postgres from 'postgres';
import { uuidv7 } from 'uuidv7';
import type { Deps } from '../../deps';
import { enqueueJob } from '../../job-queue';

/** The jobs that render an item anew into every message a chat app holds of it. */
type UpdateTask = 'slack_update_item' | 'telegram_update_item' | 'discord_update_item' | 'teams_update_item';

/**
 * Records a message just posted for an item (`insert`, its app's own table), under the item's row
 * lock, which every change of an item holds until it commits: a change committed before this reads
 * the new row here (and the update job is queued, as the message shows the item as it was), one
 * committed after finds the message (and queues its own update).
 */
export async function recordPostedMessage(
  deps: Deps,
  item: { id: string; updated_at: string },
  orgId: string,
  task: UpdateTask,
  insert: (tx: postgres.TransactionSql) => Promise<unknown>,
): Promise<void> {
  await deps.sql.begin(async (tx) => {
    const [row] = await tx<{ changed: boolean }[]>`
      select date_trunc('milliseconds', updated_at) <> ${new Date(item.updated_at)} as changed
        from items where org_id = ${orgId} and id = ${item.id} for share`;
    await insert(tx);
    if (row?.changed) {
      const update = { item_id: item.id, org_id: orgId, event: 'item.updated', delivery_id: uuidv7() };
      await enqueueJob(tx, task, update, { key: `${task}:${item.id}` });
    }
  });
}
