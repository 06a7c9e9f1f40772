import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { deliverInbound } from '../modules/inbound/inbound.service';

const ZToken = z.strictObject({ token: z.string().min(1).max(200) });

/**
 * POST /api/webhooks/inbound/:token: external systems create items without a bearer token (the
 * URL's token is the credential). A plain route because the token is not part of the item input.
 */
export function registerInbound(app: FastifyInstance, deps: Deps): void {
  app.post('/api/webhooks/inbound/:token', async (request, reply) => {
    const params = ZToken.safeParse(request.params);
    if (!params.success) throw AppError.notFound();
    const key = request.headers['idempotency-key'];
    const exchange = { idempotencyKey: typeof key === 'string' ? key : null, responseHeaders: {} };
    const item = await deliverInbound(deps, params.data.token, request.body, exchange);
    return reply.code(201).headers(exchange.responseHeaders).send(item);
  });
}
