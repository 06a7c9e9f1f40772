import { z } from 'zod';

/** Size limits of decisions.md: a file is at most 10 MiB decoded; its JSON body carries it in base64. */
export const ATTACHMENT_LIMITS = {
  bytes: 10 * 1024 * 1024,
  /** 10 MiB in base64 is 13.3 MiB: the upload route accepts JSON bodies up to 15 MiB. */
  bodyBytes: 15 * 1024 * 1024,
  filename: 255,
  contentType: 255,
};

/** C0 and C1 control characters, DEL, and UTF-16 surrogates left unpaired. */
const CONTROL = /[\p{Cc}\p{Cs}]/u;

const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const quoted = '"(?:[\\t !#-\\[\\]-~]|\\\\[\\t -~])*"';
/** RFC 9110 media type: `type/subtype`, optionally with `; name=value` parameters. */
const MEDIA_TYPE = new RegExp(`^${token}/${token}(?:[ \\t]*;[ \\t]*${token}=(?:${token}|${quoted}))*$`);

/** Standard or url-safe alphabet (not mixed), padding optional; no whitespace. */
const BASE64 = /^(?:[A-Za-z0-9+/]*|[A-Za-z0-9_-]*)={0,2}$/;

function isBase64(data: string): boolean {
  if (!BASE64.test(data)) return false;
  const unpadded = data.replace(/=+$/, '');
  if (unpadded.length % 4 === 1) return false;
  return unpadded.length === data.length || data.length % 4 === 0;
}

export const ZAttachment = z
  .object({
    id: z.uuid(),
    item_id: z.uuid(),
    filename: z.string(),
    content_type: z.string(),
    size: z.number().int().describe('Bytes of the decoded file'),
    sha256: z.string().describe('Hex SHA-256 of the decoded file'),
    created_at: z.string(),
  })
  .meta({ id: 'Attachment' });
export type AttachmentView = z.infer<typeof ZAttachment>;

export const ZCreateAttachmentInput = z.strictObject({
  id: z.uuid(),
  filename: z
    .string()
    .min(1)
    .max(ATTACHMENT_LIMITS.filename)
    .refine((name) => !/[/\\]/.test(name) && !CONTROL.test(name), {
      message: 'must not contain /, \\ or control characters',
    }),
  content_type: z
    .string()
    .max(ATTACHMENT_LIMITS.contentType)
    .regex(MEDIA_TYPE, 'must be a MIME type such as application/pdf'),
  data: z
    .string()
    .refine(isBase64, { message: 'must be base64 (standard or url-safe alphabet)' })
    .describe(`The file in base64; at most ${ATTACHMENT_LIMITS.bytes} bytes once decoded`),
});
export type CreateAttachmentInput = z.infer<typeof ZCreateAttachmentInput>;

export const ZAttachmentRef = z.strictObject({ id: z.uuid(), aid: z.uuid() });

const tags = ['attachments'];
export const attachmentMeta = {
  list: {
    openapi: {
      method: 'GET',
      path: '/items/{id}/attachments',
      protect: true,
      tags,
      summary: 'Attachment metadata, oldest first',
    },
  },
  create: {
    status: 201,
    bodyLimit: ATTACHMENT_LIMITS.bodyBytes,
    payloadLimit: ATTACHMENT_LIMITS.bytes,
    openapi: {
      method: 'POST',
      path: '/items/{id}/attachments',
      protect: true,
      tags,
      summary: 'Upload a file (base64, at most 10 MiB decoded)',
      errorResponses: {
        402: "The organization's attachment storage would pass its plan's (key attachment_storage_bytes)",
        403: 'Permission denied',
        503: 'The attachment store failed or cannot be reached',
      },
    },
  },
  delete: {
    openapi: {
      method: 'DELETE',
      path: '/items/{id}/attachments/{aid}',
      protect: true,
      tags,
      summary: 'Delete an attachment and its stored file',
    },
  },
} as const;
