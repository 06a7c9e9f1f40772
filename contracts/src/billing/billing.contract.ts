import { z } from 'zod';
import type { Meta } from '../meta';

export const ZSubscription = z
  .object({
    plan: z.object({ id: z.uuid(), code: z.string(), name: z.string() }),
    status: z.enum(['active', 'trialing', 'past_due', 'canceled', 'incomplete']),
    cancel_at_period_end: z.boolean(),
    current_period_end: z.string().nullable(),
    customer: z
      .boolean()
      .describe('A billing account exists at the payment provider (the portal is available)'),
  })
  .meta({ id: 'Subscription' });
export type SubscriptionView = z.infer<typeof ZSubscription>;

export const ZPlan = z
  .object({
    id: z.uuid(),
    code: z.string(),
    name: z.string(),
    limits: z.object({
      max_seats: z.number().int().nullable(),
      max_teams: z.number().int().nullable(),
      monthly_notifications: z.number().int().nullable(),
      webhooks: z.number().int().nullable(),
      agents: z.number().int().nullable(),
    }),
    audit_retention_days: z.number().int(),
    purchasable: z.boolean().describe('A price is configured: POST /billing/checkout takes it'),
  })
  .meta({ id: 'Plan' });
export type PlanView = z.infer<typeof ZPlan>;

export const ZCheckoutInput = z.strictObject({ plan_id: z.uuid() });
export const ZRedirect = z.object({ url: z.string() }).meta({ id: 'BillingRedirect' });

const tags = ['billing'];
const protect = true;
const unavailable = 'Without payment configuration: 503 {"error":"billing is not configured"}.';
export const billingMeta = {
  plans: {
    openapi: {
      method: 'GET',
      path: '/billing/plans',
      protect,
      tags,
      summary: 'The plans with their limits (null: unlimited), cheapest first',
    },
  },
  subscription: {
    openapi: {
      method: 'GET',
      path: '/billing/subscription',
      protect,
      tags,
      summary: 'Current plan, status and cancel-at-period-end flag (org.billing)',
      description: unavailable,
    },
  },
  checkout: {
    openapi: {
      method: 'POST',
      path: '/billing/checkout',
      protect,
      tags,
      summary: 'A hosted checkout session for a paid plan (org.billing): its {url}',
      description: `400 for a plan that cannot be bought (unknown, Free, or without a price); 409 for a personal workspace (it stays on Free) and for an organization that already pays (change plans in the portal). ${unavailable}`,
    },
  },
  portal: {
    openapi: {
      method: 'POST',
      path: '/billing/portal',
      protect,
      tags,
      summary: 'A hosted customer portal session (org.billing): its {url}',
      description: `409 before the organization has a billing account (after its first checkout). ${unavailable}`,
    },
  },
} satisfies Record<string, Meta>;
