import { attachmentsProcedures } from '@beckon/contracts/attachments/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { createAttachment, deleteAttachment, listAttachments } from './attachments.service';

const read = permissionProcedure('items.read');
const write = permissionProcedure('items.write');

/** Attachments of an item; the download (raw bytes) is a plain route in http/downloads.ts. */
export const attachmentsRouter = router({
  list: implement(read, attachmentsProcedures.list).query(({ ctx, input }) =>
    listAttachments(ctx.deps, ctx.identity, input.id),
  ),
  create: implement(write, attachmentsProcedures.create).mutation(({ ctx, input }) =>
    createAttachment(ctx.deps, ctx.identity, input),
  ),
  delete: implement(write, attachmentsProcedures.delete).mutation(({ ctx, input }) =>
    deleteAttachment(ctx.deps, ctx.identity, input.id, input.aid),
  ),
});
