import { createHash } from 'node:crypto';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import { actorOf } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordItemChange } from '../items/item-changes';
import { findItem } from '../items/item-queries';
import { ATTACHMENT_LIMITS, type AttachmentView, type CreateAttachmentInput } from './attachment.contract';

type AttachmentRow = {
  id: string;
  org_id: string;
  item_id: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  storage_key: string;
  created_at: Date;
};

const attachmentView = (row: AttachmentRow): AttachmentView => ({
  id: row.id,
  item_id: row.item_id,
  filename: row.filename,
  content_type: row.content_type,
  size: row.size,
  sha256: row.sha256,
  created_at: row.created_at.toISOString(),
});

/** Where the file of an attachment is stored: under its organization, named by its id. */
const storageKey = (orgId: string, attachmentId: string) => `${orgId}/${attachmentId}`;

export async function listAttachments(deps: Deps, identity: Identity, itemId: string) {
  await findItem(deps.sql, identity, itemId);
  const rows = await deps.sql<AttachmentRow[]>`
    select * from attachments where item_id = ${itemId} and org_id = ${identity.orgId} order by id`;
  return rows.map(attachmentView);
}

/**
 * Stores the file first, then writes its row with the audit entry and event in one transaction;
 * when that transaction fails the stored file is deleted again, so no file is left without a row.
 */
export async function createAttachment(
  deps: Deps,
  identity: Identity,
  input: CreateAttachmentInput,
): Promise<AttachmentView> {
  const data = Buffer.from(input.data, 'base64');
  if (data.length > ATTACHMENT_LIMITS.bytes) throw AppError.payloadTooLarge(ATTACHMENT_LIMITS.bytes);
  await findItem(deps.sql, identity, input.id);

  const id = uuidv7();
  const key = storageKey(identity.orgId, id);
  const sha256 = createHash('sha256').update(data).digest('hex');
  const actor = actorOf(identity);
  await deps.storage.put(key, data);
  try {
    const row = await deps.sql.begin(async (tx) => {
      const item = await findItem(tx, identity, input.id);
      const [inserted] = await tx<AttachmentRow[]>`
        insert into attachments (id, org_id, item_id, filename, content_type, size, sha256, storage_key)
        values (${id}, ${identity.orgId}, ${item.id}, ${input.filename}, ${input.content_type},
                ${data.length}, ${sha256}, ${key})
        returning *`;
      await recordItemChange(tx, {
        row: item,
        action: 'attachment.create',
        actor,
        event: 'item.updated',
        data: { attachment_id: id, filename: input.filename },
      });
      return inserted as AttachmentRow;
    });
    return attachmentView(row);
  } catch (error) {
    await deps.storage.delete(key).catch((err: unknown) => {
      deps.log.error({ err, key }, 'could not delete the file of a failed attachment upload');
    });
    throw error;
  }
}

async function findAttachment(deps: Deps, identity: Identity, itemId: string, attachmentId: string) {
  const [row] = await deps.sql<AttachmentRow[]>`
    select * from attachments
     where id = ${attachmentId} and item_id = ${itemId} and org_id = ${identity.orgId}`;
  if (!row) throw AppError.notFound();
  return row;
}

/**
 * Deletes the row (with its audit entry and event), then the stored file. A file that cannot be
 * deleted once the row is gone is logged, not reported: the attachment no longer exists.
 */
export async function deleteAttachment(
  deps: Deps,
  identity: Identity,
  itemId: string,
  attachmentId: string,
): Promise<AttachmentView> {
  const row = await deps.sql.begin(async (tx) => {
    const item = await findItem(tx, identity, itemId);
    const [deleted] = await tx<AttachmentRow[]>`
      delete from attachments
       where id = ${attachmentId} and item_id = ${itemId} and org_id = ${identity.orgId}
      returning *`;
    if (!deleted) throw AppError.notFound();
    await recordItemChange(tx, {
      row: item,
      action: 'attachment.delete',
      actor: actorOf(identity),
      event: 'item.updated',
      data: { attachment_id: deleted.id, filename: deleted.filename },
    });
    return deleted;
  });
  await deps.storage.delete(row.storage_key).catch((err: unknown) => {
    deps.log.error({ err, key: row.storage_key }, 'could not delete the file of a deleted attachment');
  });
  return attachmentView(row);
}

/** The metadata and bytes of one attachment, for the download route. */
export async function readAttachment(
  deps: Deps,
  identity: Identity,
  itemId: string,
  attachmentId: string,
): Promise<{ attachment: AttachmentView; data: Buffer }> {
  await findItem(deps.sql, identity, itemId);
  const row = await findAttachment(deps, identity, itemId, attachmentId);
  const data = await deps.storage.get(row.storage_key);
  if (!data) {
    deps.log.error(
      { attachment_id: row.id, key: row.storage_key },
      'stored file of an attachment is missing',
    );
    throw AppError.internal();
  }
  return { attachment: attachmentView(row), data };
}
