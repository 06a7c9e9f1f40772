import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../deps';
import { AppError, fieldsFromZod } from '../errors';
import { auditBounds, chainEntries } from '../modules/audit/audit-chain.service';
import { authenticate } from './authenticate';

const ZExportQuery = z.strictObject({});

/**
 * GET /api/audit/export: the organization's audit chain as JSON Lines, streamed: an `anchor`
 * line (where the chain starts), one `entry` line per entry in chain order, then the `head` it
 * was read up to. `beckon audit verify --file` (or any JCS + SHA-256 implementation,
 * contracts/src/proofs/audit-chain.ts) checks it without the server. Not a JSON procedure, so it
 * authenticates as procedures do (bearer token, then `audit.read`).
 */
export function registerAuditExport(app: FastifyInstance, deps: Deps): void {
  app.get('/api/audit/export', async (request, reply) => {
    const identity = await authenticate(deps, request, 'audit.read');
    const query = ZExportQuery.safeParse(request.query ?? {});
    if (!query.success) throw AppError.invalid(fieldsFromZod(query.error.issues));

    const { anchor, head } = await auditBounds(deps, identity.orgId);
    async function* lines() {
      yield `${JSON.stringify({ type: 'anchor', org_id: identity.orgId, ...anchor })}\n`;
      for await (const entry of chainEntries(deps, identity.orgId, anchor, head)) {
        yield `${JSON.stringify({ type: 'entry', ...entry })}\n`;
      }
      yield `${JSON.stringify({ type: 'head', org_id: identity.orgId, ...(head ?? anchor) })}\n`;
    }
    reply.code(200).headers({
      'content-type': 'application/jsonl; charset=utf-8',
      'content-disposition': 'attachment; filename="audit.jsonl"',
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
    });
    return reply.send(Readable.from(lines()));
  });
}
