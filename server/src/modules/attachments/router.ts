import { z } from 'zod';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { ZItemId } from '../items/item.contract';
import { attachmentMeta, ZAttachment, ZAttachmentRef, ZCreateAttachmentInput } from './attachment.contract';
import { createAttachment, deleteAttachment, listAttachments } from './attachments.service';

const read = permissionProcedure('items.read');
const write = permissionProcedure('items.write');

/** Attachments of an item; the download (raw bytes) is a plain route in http/downloads.ts. */
export const attachmentsRouter = router({
  list: read
    .meta(attachmentMeta.list)
    .input(ZItemId)
    .output(z.array(ZAttachment))
    .query(({ ctx, input }) => listAttachments(ctx.deps, ctx.identity, input.id)),
  create: write
    .meta(attachmentMeta.create)
    .input(ZCreateAttachmentInput)
    .output(ZAttachment)
    .mutation(({ ctx, input }) => createAttachment(ctx.deps, ctx.identity, input)),
  delete: write
    .meta(attachmentMeta.delete)
    .input(ZAttachmentRef)
    .output(ZAttachment)
    .mutation(({ ctx, input }) => deleteAttachment(ctx.deps, ctx.identity, input.id, input.aid)),
});
