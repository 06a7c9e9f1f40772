import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../deps';
import { AppError, fieldsFromZod } from '../errors';
import { organizationLines } from '../modules/retention/org-export';
import { authenticate } from './authenticate';

const ZExportQuery = z.strictObject({});

/**
 * GET /api/admin/export (org.manage): the organization's data as JSON Lines, streamed
 * (modules/retention/org-export.ts names what it holds). Not a JSON procedure, so it
 * authenticates as procedures do (bearer token, then the permission).
 */
export function registerOrgExport(app: FastifyInstance, deps: Deps): void {
  app.get('/api/admin/export', async (request, reply) => {
    const identity = await authenticate(deps, request, 'org.manage');
    const query = ZExportQuery.safeParse(request.query ?? {});
    if (!query.success) throw AppError.invalid(fieldsFromZod(query.error.issues));
    // Every event and audit entry committed so far in its place (realtime/sequencer.ts).
    await deps.sequencer?.settle([identity.orgId]);
    reply.code(200).headers({
      'content-type': 'application/jsonl; charset=utf-8',
      'content-disposition': 'attachment; filename="organization.jsonl"',
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
    });
    return reply.send(Readable.from(organizationLines(deps.sql, identity.orgId)));
  });
}
