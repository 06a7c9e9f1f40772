// Longer than 300 lines: one flow against one fake payment provider (checkout, portal, each signed event), sharing its setup.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startFakePayments, startTestServer, type TestServer } from '../harness';

type Subscription = {
  plan: { code: string };
  status: string;
  cancel_at_period_end: boolean;
  customer: boolean;
};
type Plan = { id: string; code: string };

const WEBHOOK_SECRET = 'whsec_test_secret';
const signer = new Stripe('sk_test_signer');

let server: TestServer;
let unconfigured: TestServer;
let fake: Awaited<ReturnType<typeof startFakePayments>>;
let f: Factories;
let plans: Record<string, string>;

beforeAll(async () => {
  fake = await startFakePayments();
  server = await startTestServer({
    env: {
      PAYMENT_SECRET_KEY: 'sk_test_beckon',
      PAYMENT_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAYMENT_PRICE_TEAM: 'price_team',
      PAYMENT_PRICE_ENTERPRISE: 'price_enterprise',
      PAYMENT_API_URL: fake.url,
    },
  });
  unconfigured = await startTestServer();
  f = new Factories(server.database.db);
  const rows = await server.database.sql<Plan[]>`select id, code from plans`;
  plans = Object.fromEntries(rows.map((p) => [p.code, p.id]));
});
afterAll(async () => {
  await server?.close();
  await unconfigured?.close();
  await fake?.close();
});

async function owner(personal = false) {
  const org = await f.org({ personal });
  const user = await f.user();
  await f.member(org.id, user.id, 'owner');
  const session = await f.session(user.id, org.id);
  return { org, user, api: server.resource.as(session.token) };
}

/** A provider event, signed as the provider signs it, posted to /webhooks/payments. */
async function sendEvent(type: string, object: Record<string, unknown>, secret = WEBHOOK_SECRET) {
  const payload = JSON.stringify({ id: `evt_${Math.random()}`, object: 'event', type, data: { object } });
  const signature = signer.webhooks.generateTestHeaderString({ payload, secret });
  const res = await fetch(`${server.resource.baseUrl}/webhooks/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

const subscriptionObject = (orgId: string, fields: Record<string, unknown> = {}) => ({
  id: `sub_${orgId.slice(0, 8)}`,
  object: 'subscription',
  customer: `cus_of_${orgId.slice(0, 8)}`,
  status: 'active',
  cancel_at_period_end: false,
  metadata: { org_id: orgId },
  items: {
    object: 'list',
    data: [{ id: 'si_1', price: { id: 'price_team' }, current_period_end: 1_900_000_000 }],
  },
  ...fields,
});

const subscription = async (api: HttpClient) =>
  (await api.get<Subscription>('/api/billing/subscription')).body;

describe('billing without payment configuration', () => {
  it('answers 503 everywhere and leaves organizations on Free', async () => {
    const account = await new Factories(unconfigured.database.db).account('owner');
    const api = unconfigured.resource.as(account.token);
    for (const res of [
      await api.get('/api/billing/subscription'),
      await api.post('/api/billing/checkout', { plan_id: plans.team }),
      await api.post('/api/billing/portal'),
      await unconfigured.resource.post('/webhooks/payments', {}),
    ]) {
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'billing is not configured', code: 'billing_not_configured' });
    }
    const [row] = await unconfigured.database.sql<{ code: string }[]>`
      select p.code from subscriptions s join plans p on p.id = s.plan_id where s.org_id = ${account.org.id}`;
    expect(row!.code).toBe('free');
  });
});

describe('billing', () => {
  it('lists the plans with their limits; those with a price can be bought', async () => {
    const { api } = await owner();
    const listed =
      await api.get<Array<{ code: string; purchasable: boolean; limits: Record<string, unknown> }>>(
        '/api/billing/plans',
      );
    expect(listed.body.map((p) => [p.code, p.purchasable])).toEqual([
      ['free', false],
      ['team', true],
      ['enterprise', true],
    ]);
    expect(listed.body[0]!.limits).toEqual({
      max_seats: 3,
      max_teams: 1,
      monthly_notifications: 1000,
      webhooks: 1,
      agents: 1,
    });
    const plain = (await new Factories(unconfigured.database.db).account('member')).token;
    const unconfiguredPlans = await unconfigured.resource
      .as(plain)
      .get<Array<{ purchasable: boolean }>>('/api/billing/plans');
    expect(unconfiguredPlans.body.every((p) => !p.purchasable)).toBe(true);
  });

  it('writes the configured prices into the plans', async () => {
    const rows = await server.database.sql<{ code: string; payment_price_id: string | null }[]>`
      select code, payment_price_id from plans order by code`;
    expect(rows).toEqual([
      { code: 'enterprise', payment_price_id: 'price_enterprise' },
      { code: 'free', payment_price_id: null },
      { code: 'team', payment_price_id: 'price_team' },
    ]);
  });

  it('checks out a paid plan, then follows the provider: linked, active on Team, past due, canceled', async () => {
    const { api, org, user } = await owner();
    expect(await subscription(api)).toMatchObject({
      plan: { code: 'free' },
      status: 'active',
      customer: false,
    });

    const checkout = await api.post<{ url: string }>('/api/billing/checkout', { plan_id: plans.team });
    expect(checkout.status).toBe(200);
    expect(checkout.body.url).toMatch(/^https:\/\/pay\.example\.test\/c\/cs_/);
    const [customerCall, sessionCall] = fake.calls.slice(-2);
    expect(customerCall).toMatchObject({ path: '/v1/customers', apiKey: 'sk_test_beckon' });
    expect(customerCall!.params['metadata[org_id]']).toBe(org.id);
    expect(sessionCall!.params).toMatchObject({
      mode: 'subscription',
      client_reference_id: org.id,
      'line_items[0][price]': 'price_team',
      'subscription_data[metadata][org_id]': org.id,
      success_url: 'http://localhost:5173/settings/billing?checkout=done',
    });
    expect((await subscription(api)).customer).toBe(true);
    const customer = sessionCall!.params.customer!;
    expect(customerCall!.params.email).toBe(user.email);

    const completed = await sendEvent('checkout.session.completed', {
      id: 'cs_1',
      object: 'checkout.session',
      client_reference_id: org.id,
      customer,
      subscription: 'sub_linked',
      metadata: { org_id: org.id },
    });
    expect(completed).toEqual({ status: 200, body: { received: true } });
    const [linked] = await server.database.sql<{ payment_subscription_id: string }[]>`
      select payment_subscription_id from subscriptions where org_id = ${org.id}`;
    expect(linked!.payment_subscription_id).toBe('sub_linked');

    await sendEvent(
      'customer.subscription.created',
      subscriptionObject(org.id, { id: 'sub_linked', customer }),
    );
    expect(await subscription(api)).toMatchObject({ plan: { code: 'team' }, status: 'active' });
    const usage = await api.get<{ limits: { max_teams: { limit: number } } }>('/api/admin/usage');
    expect(usage.body.limits.max_teams.limit).toBe(5);
    const again = await api.post('/api/billing/checkout', { plan_id: plans.enterprise });
    expect(again.status).toBe(409);

    await sendEvent(
      'customer.subscription.updated',
      subscriptionObject(org.id, { id: 'sub_linked', customer, cancel_at_period_end: true }),
    );
    expect(await subscription(api)).toMatchObject({ plan: { code: 'team' }, cancel_at_period_end: true });
    await sendEvent('invoice.payment_failed', {
      id: 'in_1',
      object: 'invoice',
      customer: sessionCall!.params.customer,
    });
    expect((await subscription(api)).status).toBe('past_due');
    await sendEvent(
      'customer.subscription.deleted',
      subscriptionObject(org.id, { id: 'sub_linked', customer, status: 'canceled' }),
    );
    expect(await subscription(api)).toMatchObject({
      plan: { code: 'free' },
      status: 'canceled',
      cancel_at_period_end: false,
    });
    const audit = await server.database.sql<{ action: string }[]>`
      select action from audit_entries where org_id = ${org.id} and action like 'billing.%' order by id`;
    expect(audit.map((a) => a.action)).toEqual([
      'billing.checkout',
      'billing.checkout_completed',
      'billing.subscription_synced',
      'billing.subscription_synced',
      'billing.payment_failed',
      'billing.subscription_synced',
    ]);
  });

  it('opens the portal once there is a billing account', async () => {
    const { api } = await owner();
    const none = await api.post('/api/billing/portal');
    expect(none.status).toBe(409);
    await api.post('/api/billing/checkout', { plan_id: plans.team });
    const portal = await api.post<{ url: string }>('/api/billing/portal');
    expect(portal.body.url).toMatch(/^https:\/\/pay\.example\.test\/p\/bps_/);
    expect(fake.calls.at(-1)!.params.return_url).toBe('http://localhost:5173/settings/billing');
  });

  it('refuses what cannot be bought, personal workspaces, and callers without org.billing', async () => {
    const { api, org } = await owner();
    for (const planId of [plans.free, crypto.randomUUID()]) {
      const res = await api.post('/api/billing/checkout', { plan_id: planId });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'invalid request',
        code: 'invalid_request',
        fields: { plan_id: 'not a plan that can be bought here' },
      });
    }
    const personal = await owner(true);
    const refused = await personal.api.post('/api/billing/checkout', { plan_id: plans.team });
    expect(refused.body).toEqual({
      error: 'a personal workspace stays on the Free plan',
      code: 'personal_workspace',
    });
    // Even an event that says otherwise leaves a personal workspace on Free.
    const event = await sendEvent('customer.subscription.updated', subscriptionObject(personal.org.id));
    expect(event.status).toBe(200);
    expect((await subscription(personal.api)).plan.code).toBe('free');

    const admin = await f.user();
    await f.member(org.id, admin.id, 'admin');
    const asAdmin = server.resource.as((await f.session(admin.id, org.id)).token);
    expect((await asAdmin.get('/api/billing/subscription')).body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.billing',
    });
  });

  it("trusts only its own metadata, and keeps following the organization's first subscription", async () => {
    const { api, org } = await owner();
    // A checkout that is not ours (a payment link) names the organization in client_reference_id.
    await sendEvent('checkout.session.completed', {
      id: 'cs_foreign',
      object: 'checkout.session',
      client_reference_id: org.id,
      customer: 'cus_stranger',
      subscription: 'sub_stranger',
      metadata: {},
    });
    expect((await subscription(api)).customer).toBe(false);

    await api.post('/api/billing/checkout', { plan_id: plans.team });
    const customer = fake.calls.at(-1)!.params.customer!;
    await sendEvent(
      'customer.subscription.created',
      subscriptionObject(org.id, { id: 'sub_first', customer }),
    );
    // A second subscription (a duplicate checkout) neither moves nor ends the organization's.
    await sendEvent(
      'customer.subscription.created',
      subscriptionObject(org.id, {
        id: 'sub_second',
        customer,
        items: {
          object: 'list',
          data: [{ id: 'si_2', price: { id: 'price_enterprise' }, current_period_end: 1_900_000_000 }],
        },
      }),
    );
    await sendEvent(
      'customer.subscription.deleted',
      subscriptionObject(org.id, { id: 'sub_second', customer, status: 'canceled' }),
    );
    expect(await subscription(api)).toMatchObject({ plan: { code: 'team' }, status: 'active' });
    const [row] = await server.database.sql<{ payment_subscription_id: string }[]>`
      select payment_subscription_id from subscriptions where org_id = ${org.id}`;
    expect(row!.payment_subscription_id).toBe('sub_first');
  });

  it('refuses events with a bad signature and ignores kinds it does not handle', async () => {
    const { api, org } = await owner();
    const forged = await sendEvent(
      'customer.subscription.updated',
      subscriptionObject(org.id),
      'whsec_wrong',
    );
    expect(forged.status).toBe(400);
    expect(forged.body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { signature: 'does not match the payment webhook secret' },
    });
    expect((await subscription(api)).plan.code).toBe('free');
    const unsigned = await server.resource.post('/webhooks/payments', { type: 'invoice.payment_failed' });
    expect(unsigned.status).toBe(400);
    expect(await sendEvent('customer.created', { id: 'cus_x', object: 'customer' })).toEqual({
      status: 200,
      body: { received: true },
    });
  });
});
