import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../deps';
import { receiptJwks } from '../modules/receipts/receipt-keys';

const ZJwksQuery = z.object({ org_id: z.uuid() });

/**
 * GET /.well-known/jwks.json?org_id=...: the public keys (active and retired) that verify the
 * organization's decision receipts. Public, as a JWK Set is; an unknown organization has none.
 * Served by both processes, like the protected-resource metadata.
 */
export function registerReceiptKeys(app: FastifyInstance, deps: Deps): void {
  app.get('/.well-known/jwks.json', async (request, reply) => {
    const query = ZJwksQuery.safeParse(request.query ?? {});
    if (!query.success) {
      return reply.code(400).send({ error: 'invalid request', fields: { org_id: 'a UUID is required' } });
    }
    return reply
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'max-age=60')
      .send(await receiptJwks(deps.sql, query.data.org_id));
  });
}
