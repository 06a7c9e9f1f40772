import { createHash, type Hash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  ATTACHMENT_LIMITS,
  type AttachmentView,
  type CreateAttachmentInput,
} from '@beckon/contracts/attachments/attachment.contract';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import { actorOf } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import type { StoredFile } from '../../storage/storage';
import { recordChange } from '../items/changes/record-change';
import { findItem } from '../items/rows/item-queries';
import { enforceStorageQuota } from './storage-quota';

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

/** Bytes of valid base64 text once decoded (the contract has checked the alphabet and length). */
function decodedSize(data: string): number {
  let end = data.length;
  while (end > 0 && data[end - 1] === '=') end--;
  return Math.floor((end * 3) / 4);
}

/** Base64 characters decoded at a time: a multiple of 4, so every slice decodes on its own. */
const DECODE_CHARS = 256 * 1024;

/** The decoded bytes in slices, each added to `hash` as storage reads it (never a second whole copy). */
function* decodeBase64(data: string, hash: Hash): Generator<Buffer> {
  for (let at = 0; at < data.length; at += DECODE_CHARS) {
    const chunk = Buffer.from(data.slice(at, at + DECODE_CHARS), 'base64');
    hash.update(chunk);
    yield chunk;
  }
}

/** Where the file of an attachment is stored: under its organization, named by its id. */
const storageKey = (orgId: string, attachmentId: string) => `${orgId}/${attachmentId}`;

export async function listAttachments(deps: Deps, identity: Identity, itemId: string) {
  await findItem(deps.sql, identity, itemId);
  const rows = await deps.sql<AttachmentRow[]>`
    select * from attachments where item_id = ${itemId} and org_id = ${identity.orgId} order by id`;
  return rows.map(attachmentView);
}

/**
 * Stores the file first, streamed from the decoded body, then writes its row with the audit entry
 * and event in one transaction; when that transaction fails the stored file is deleted again, so
 * no file is left without a row. A file over the limit, or past the organization's storage quota,
 * is refused before anything is stored.
 */
export async function createAttachment(
  deps: Deps,
  identity: Identity,
  input: CreateAttachmentInput,
): Promise<AttachmentView> {
  const size = decodedSize(input.data);
  if (size > ATTACHMENT_LIMITS.bytes) throw AppError.payloadTooLarge(ATTACHMENT_LIMITS.bytes);
  await findItem(deps.sql, identity, input.id);
  await enforceStorageQuota(deps.sql, deps.env, identity.orgId, size, false);

  const id = uuidv7();
  const key = storageKey(identity.orgId, id);
  const hash = createHash('sha256');
  const actor = actorOf(identity);
  await deps.storage.put(key, Readable.from(decodeBase64(input.data, hash)), size);
  const sha256 = hash.digest('hex');
  try {
    const row = await deps.sql.begin(async (tx) => {
      const item = await findItem(tx, identity, input.id);
      // Again, counted one upload at a time: another may have been stored meanwhile.
      await enforceStorageQuota(tx, deps.env, identity.orgId, size, true);
      const [inserted] = await tx<AttachmentRow[]>`
        insert into attachments (id, org_id, item_id, filename, content_type, size, sha256, storage_key)
        values (${id}, ${identity.orgId}, ${item.id}, ${input.filename}, ${input.content_type},
                ${size}, ${sha256}, ${key})
        returning *`;
      await recordChange(tx, {
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
    await recordChange(tx, {
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

/** The metadata and the stored file (a stream) of one attachment, for the download route. */
export async function readAttachment(
  deps: Deps,
  identity: Identity,
  itemId: string,
  attachmentId: string,
): Promise<{ attachment: AttachmentView; file: StoredFile }> {
  await findItem(deps.sql, identity, itemId);
  const row = await findAttachment(deps, identity, itemId, attachmentId);
  const file = await deps.storage.get(row.storage_key);
  if (!file) {
    deps.log.error(
      { attachment_id: row.id, key: row.storage_key },
      'stored file of an attachment is missing',
    );
    throw AppError.internal();
  }
  return { attachment: attachmentView(row), file };
}
