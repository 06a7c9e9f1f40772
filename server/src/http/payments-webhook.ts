import type { FastifyInstance } from 'fastify';
import type Stripe from 'stripe';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { applyPaymentEvent, requirePayments } from '../modules/billing/billing.service';

/** The provider signs the exact bytes: the route keeps the body as received, up to this size. */
const MAX_EVENT_BYTES = 512 * 1024;

/**
 * POST /webhooks/payments: the payment provider's events, verified against
 * PAYMENT_WEBHOOK_SECRET (400 when the signature does not match, 503 without payment
 * configuration), then applied (billing.service.ts). Answers 200 once applied, so the provider
 * redelivers what failed.
 */
export function registerPaymentsWebhook(app: FastifyInstance, deps: Deps): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: MAX_EVENT_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.post('/webhooks/payments', async (request) => {
      const { client, webhookSecret } = requirePayments(deps);
      if (!webhookSecret) throw AppError.unavailable('billing_not_configured', 'billing is not configured');
      const signature = request.headers['stripe-signature'];
      let event: Stripe.Event;
      try {
        event = client.webhooks.constructEvent(
          typeof request.body === 'string' ? request.body : '',
          typeof signature === 'string' ? signature : '',
          webhookSecret,
        );
      } catch {
        throw AppError.invalid({ signature: 'does not match the payment webhook secret' });
      }
      try {
        const outcome = await applyPaymentEvent(deps, event);
        request.log.info({ event: event.id, type: event.type, outcome }, 'payment event');
      } catch (error) {
        // A personal workspace stays on Free (the database refuses): nothing a redelivery fixes.
        if ((error as { code?: unknown }).code !== '23514') throw error;
        request.log.warn({ event: event.id, err: error }, 'payment event refused by the database');
      }
      return { received: true };
    });
  });
}
