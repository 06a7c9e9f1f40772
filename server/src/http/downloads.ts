import { ZAttachmentRef } from '@beckon/contracts/attachments/attachment.contract';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import { AppError, fieldsFromZod } from '../errors';
import { readAttachment } from '../modules/attachments/attachments.service';
import { authenticate } from './authenticate';

/** RFC 5987 attr-char: what encodeURIComponent leaves alone, minus ' ( ) *. */
const encodeRfc5987 = (value: string) =>
  encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** `attachment` with a plain ASCII name for old clients and the exact UTF-8 name (RFC 6266). */
export function contentDisposition(filename: string): string {
  const ascii =
    filename
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'download';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(filename)}`;
}

/**
 * GET /api/items/:id/attachments/:aid/download: the raw bytes of an attachment, streamed from
 * storage (the local directory or the bucket: the same headers either way). Not a JSON
 * procedure, so it authenticates as procedures do (bearer token, then `items.read`), and throws
 * AppErrors that the app's error handler renders.
 */
export function registerDownloads(app: FastifyInstance, deps: Deps): void {
  app.get('/api/items/:id/attachments/:aid/download', async (request, reply) => {
    const identity = await authenticate(deps, request, 'items.read');
    const params = ZAttachmentRef.safeParse(request.params);
    if (!params.success) throw AppError.invalid(fieldsFromZod(params.error.issues));

    const { attachment, file } = await readAttachment(deps, identity, params.data.id, params.data.aid);
    reply.code(200).headers({
      'content-type': attachment.content_type,
      'content-disposition': contentDisposition(attachment.filename),
      'content-length': String(file.size),
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
    });
    // HEAD (Fastify answers it with this route, draining a stream it is given, keeping the
    // headers): closed first, so the file is not read for nothing.
    if (request.method === 'HEAD') file.body.destroy();
    return reply.send(file.body);
  });
}
