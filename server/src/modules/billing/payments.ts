import type { Sql } from '@beckon/db';
import Stripe from 'stripe';
import type { Env } from '../../env';

export type Payments = { client: Stripe; webhookSecret: string | null };

/**
 * The payment provider's client, when PAYMENT_SECRET_KEY is set (else null: billing answers 503),
 * made once per process by createDeps. PAYMENT_API_URL points it elsewhere than the provider's own
 * API (the tests' local fake).
 */
export function createPayments(env: Env): Payments | null {
  if (!env.PAYMENT_SECRET_KEY) return null;
  const base = env.PAYMENT_API_URL ? new URL(env.PAYMENT_API_URL) : null;
  const client = new Stripe(env.PAYMENT_SECRET_KEY, {
    maxNetworkRetries: 2,
    timeout: 15_000,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === 'https:' ? 443 : 80),
          protocol: base.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  });
  return { client, webhookSecret: env.PAYMENT_WEBHOOK_SECRET ?? null };
}

/** Writes the configured price identifiers into the plans (at start), so events map to plans. */
export async function syncPlanPrices(sql: Sql, env: Env): Promise<void> {
  const prices = { team: env.PAYMENT_PRICE_TEAM ?? null, enterprise: env.PAYMENT_PRICE_ENTERPRISE ?? null };
  for (const [code, price] of Object.entries(prices)) {
    await sql`update plans set payment_price_id = ${price} where code = ${code}`;
  }
}
