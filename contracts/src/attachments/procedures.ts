import { z } from 'zod';
import { ZItemId } from '../items/item.contract';
import { mutation, query } from '../procedure';
import { attachmentMeta, ZAttachment, ZAttachmentRef, ZCreateAttachmentInput } from './attachment.contract';

export const attachmentsProcedures = {
  list: query({ meta: attachmentMeta.list, input: ZItemId, output: z.array(ZAttachment) }),
  create: mutation({ meta: attachmentMeta.create, input: ZCreateAttachmentInput, output: ZAttachment }),
  delete: mutation({ meta: attachmentMeta.delete, input: ZAttachmentRef, output: ZAttachment }),
};
