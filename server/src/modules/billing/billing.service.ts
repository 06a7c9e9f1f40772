import type { PlanView, SubscriptionView } from '@beckon/contracts/billing/billing.contract';
import type { Queryable } from '@beckon/db';
import type Stripe from 'stripe';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordAudit, recordOrgChange } from '../audit/audit.service';
import type { Payments } from './payments';

const STATUSES = ['active', 'trialing', 'past_due', 'canceled', 'incomplete'] as const;
type Status = (typeof STATUSES)[number];

/** The configured provider, or 503 (decisions: without payment configuration, billing is off). */
export function requirePayments(deps: Pick<Deps, 'payments'>): Payments {
  const configured = deps.payments;
  if (!configured) throw AppError.unavailable('billing_not_configured', 'billing is not configured');
  return configured;
}

type PlanRow = Omit<PlanView, 'limits' | 'purchasable'> &
  PlanView['limits'] & { payment_price_id: string | null };

/** Every plan and its limits; `purchasable` when payments are configured and it has a price. */
export async function listPlans(deps: Deps): Promise<PlanView[]> {
  const configured = deps.payments !== null;
  const rows = await deps.sql<PlanRow[]>`
    select id, code, name, max_seats, max_teams, monthly_notifications, webhooks, agents,
           audit_retention_days, payment_price_id
      from plans order by array_position(array['free', 'team', 'enterprise'], code), code`;
  return rows.map(
    ({ max_seats, max_teams, monthly_notifications, webhooks, agents, payment_price_id, ...plan }) => ({
      ...plan,
      limits: { max_seats, max_teams, monthly_notifications, webhooks, agents },
      purchasable: configured && payment_price_id !== null,
    }),
  );
}

type SubscriptionRow = {
  plan_id: string;
  code: string;
  name: string;
  status: Status;
  cancel_at_period_end: boolean;
  current_period_end: Date | null;
  payment_customer_id: string | null;
  payment_subscription_id: string | null;
  is_personal: boolean;
};

async function subscriptionOf(sql: Queryable, orgId: string): Promise<SubscriptionRow> {
  const [row] = await sql<SubscriptionRow[]>`
    select s.plan_id, p.code, p.name, s.status, s.cancel_at_period_end, s.current_period_end,
           s.payment_customer_id, s.payment_subscription_id, o.is_personal
      from subscriptions s join plans p on p.id = s.plan_id join organizations o on o.id = s.org_id
     where s.org_id = ${orgId}`;
  if (!row) throw AppError.notFound();
  return row;
}

export async function getSubscription(deps: Deps, identity: Identity): Promise<SubscriptionView> {
  requirePayments(deps);
  const row = await subscriptionOf(deps.sql, identity.orgId);
  return {
    plan: { id: row.plan_id, code: row.code, name: row.name },
    status: row.status,
    cancel_at_period_end: row.cancel_at_period_end,
    current_period_end: row.current_period_end?.toISOString() ?? null,
    customer: row.payment_customer_id !== null,
  };
}

const billingPage = (deps: Deps) => `${deps.env.APP_URL}/settings/billing`;

/**
 * A hosted checkout for a paid plan. The organization's billing account (customer) is made at
 * the first checkout and kept; the subscription is linked when the provider reports the
 * completed checkout (checkout.session.completed).
 */
export async function startCheckout(
  deps: Deps,
  identity: Identity,
  planId: string,
): Promise<{ url: string }> {
  const { client } = requirePayments(deps);
  const [plan] = await deps.sql<{ code: string; payment_price_id: string | null }[]>`
    select code, payment_price_id from plans where id = ${planId}`;
  if (!plan || plan.code === 'free' || !plan.payment_price_id) {
    throw AppError.invalid({ plan_id: 'not a plan that can be bought here' });
  }
  const current = await subscriptionOf(deps.sql, identity.orgId);
  if (current.is_personal)
    throw AppError.conflict('personal_workspace', 'a personal workspace stays on the Free plan');
  if (current.payment_subscription_id && current.status !== 'canceled') {
    throw AppError.conflict(
      'already_subscribed',
      'the organization already has a subscription: change plans in the billing portal',
    );
  }
  const customer = current.payment_customer_id ?? (await createCustomer(deps, client, identity));
  const session = await client.checkout.sessions.create({
    mode: 'subscription',
    customer,
    client_reference_id: identity.orgId,
    line_items: [{ price: plan.payment_price_id, quantity: 1 }],
    metadata: { org_id: identity.orgId },
    subscription_data: { metadata: { org_id: identity.orgId } },
    success_url: `${billingPage(deps)}?checkout=done`,
    cancel_url: `${billingPage(deps)}?checkout=canceled`,
  });
  if (!session.url) throw AppError.internal();
  await recordOrgChange(deps.sql, identity, 'billing.checkout', { plan: plan.code, session_id: session.id });
  return { url: session.url };
}

async function createCustomer(deps: Deps, client: Stripe, identity: Identity): Promise<string> {
  const [org] = await deps.sql<{ name: string; email: string | null }[]>`
    select o.name, (select email from users where id = ${identity.userId}) as email
      from organizations o where o.id = ${identity.orgId}`;
  const customer = await client.customers.create({
    name: org?.name,
    ...(org?.email ? { email: org.email } : {}),
    metadata: { org_id: identity.orgId },
  });
  // A concurrent checkout may have stored one first: keep that one.
  const [stored] = await deps.sql<{ payment_customer_id: string }[]>`
    update subscriptions set payment_customer_id = coalesce(payment_customer_id, ${customer.id}), updated_at = now()
     where org_id = ${identity.orgId} returning payment_customer_id`;
  return stored?.payment_customer_id ?? customer.id;
}

export async function openPortal(deps: Deps, identity: Identity): Promise<{ url: string }> {
  const { client } = requirePayments(deps);
  const current = await subscriptionOf(deps.sql, identity.orgId);
  if (!current.payment_customer_id) {
    throw AppError.conflict(
      'no_billing_account',
      'the organization has no billing account yet: subscribe first',
    );
  }
  const session = await client.billingPortal.sessions.create({
    customer: current.payment_customer_id,
    return_url: billingPage(deps),
  });
  return { url: session.url };
}

/** The provider's subscription statuses in ours (it has more). */
function statusOf(status: Stripe.Subscription.Status): Status {
  if ((STATUSES as readonly string[]).includes(status)) return status as Status;
  if (status === 'incomplete_expired') return 'canceled';
  return 'past_due'; // unpaid, paused: payment is owed
}

const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : (value?.id ?? null);

/** The organization an event is about: its metadata, else the stored customer or subscription. */
async function orgOf(
  sql: Queryable,
  refs: { orgId?: string; customer?: string | null; subscription?: string | null },
) {
  const [row] = await sql<{ org_id: string }[]>`
    select org_id from subscriptions
     where org_id = ${refs.orgId ?? null}::uuid
        or payment_customer_id = ${refs.customer ?? null}
        or payment_subscription_id = ${refs.subscription ?? null}
     order by (org_id = ${refs.orgId ?? null}::uuid) is true desc
     limit 1`;
  return row?.org_id ?? null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const orgIdIn = (metadata: Stripe.Metadata | null | undefined) => {
  const id = metadata?.org_id;
  return id && UUID.test(id) ? id : undefined;
};

/**
 * Applies one verified payment event (the five of the specification; others are acknowledged
 * and ignored). Each sets values rather than counting, so a redelivered event changes nothing.
 * Returns what it did, for the log.
 */
export async function applyPaymentEvent(deps: Deps, event: Stripe.Event): Promise<string> {
  const { sql } = deps;
  return sql.begin(async (tx) => {
    switch (event.type) {
      case 'checkout.session.completed': {
        const session = event.data.object;
        // Only what we set ourselves: a client_reference_id can come from anyone's payment link.
        const orgId = await orgOf(tx, { orgId: orgIdIn(session.metadata), customer: idOf(session.customer) });
        if (!orgId) return 'checkout for an unknown organization';
        await tx`update subscriptions
                    set payment_customer_id = coalesce(${idOf(session.customer)}, payment_customer_id),
                        payment_subscription_id = case
                          when payment_subscription_id is null or status = 'canceled'
                          then coalesce(${idOf(session.subscription)}, payment_subscription_id)
                          else payment_subscription_id end,
                        updated_at = now()
                  where org_id = ${orgId}`;
        await audit(tx, orgId, 'billing.checkout_completed', { subscription: idOf(session.subscription) });
        return `linked ${orgId}`;
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted': {
        const subscription = event.data.object;
        const orgId = await orgOf(tx, {
          orgId: orgIdIn(subscription.metadata),
          customer: idOf(subscription.customer),
          subscription: subscription.id,
        });
        if (!orgId) return 'subscription of an unknown organization';
        // The organization follows one subscription: another one (a duplicate checkout) does not
        // move it while the current one is alive.
        const [current] = await tx<{ payment_subscription_id: string | null; status: Status }[]>`
          select payment_subscription_id, status from subscriptions where org_id = ${orgId} for update`;
        if (
          current?.payment_subscription_id &&
          current.payment_subscription_id !== subscription.id &&
          current.status !== 'canceled'
        ) {
          return `${orgId}: ignored ${subscription.id}, it follows ${current.payment_subscription_id}`;
        }
        const ended = event.type === 'customer.subscription.deleted';
        const status = ended ? 'canceled' : statusOf(subscription.status);
        const item = subscription.items.data[0];
        const [plan] = await tx<{ id: string; code: string }[]>`
          select id, code from plans
           where ${status === 'canceled'} and code = 'free'
              or not ${status === 'canceled'} and payment_price_id = ${item?.price.id ?? null}`;
        const periodEnd = item?.current_period_end ? new Date(item.current_period_end * 1000) : null;
        await tx`update subscriptions
                    set plan_id = coalesce(${plan?.id ?? null}::uuid, plan_id), status = ${status},
                        cancel_at_period_end = ${!ended && subscription.cancel_at_period_end},
                        current_period_end = ${periodEnd},
                        payment_customer_id = coalesce(${idOf(subscription.customer)}, payment_customer_id),
                        payment_subscription_id = ${subscription.id}, updated_at = now()
                  where org_id = ${orgId}`;
        await audit(tx, orgId, 'billing.subscription_synced', { status, plan: plan?.code ?? null });
        return `${orgId}: ${status}${plan ? ` on ${plan.code}` : ' (plan unchanged: unknown price)'}`;
      }
      case 'invoice.payment_failed': {
        const invoice = event.data.object;
        const orgId = await orgOf(tx, { customer: idOf(invoice.customer) });
        if (!orgId) return 'invoice of an unknown organization';
        await tx`update subscriptions set status = 'past_due', updated_at = now() where org_id = ${orgId}`;
        await audit(tx, orgId, 'billing.payment_failed', { invoice: invoice.id });
        return `${orgId}: past_due`;
      }
      default:
        return `ignored ${event.type}`;
    }
  });
}

const audit = (tx: Queryable, orgId: string, action: string, data: Record<string, unknown>) =>
  recordAudit(tx, { orgId, action, actor: { type: 'system', id: null }, data });
