import { can } from '@beckon/contracts/permissions';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Button } from '../../components/button';
import { cardClass } from '../../components/field';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { errorStatus } from '../../lib/errors';
import { useLocation } from '../../lib/router';
import { formatDateTime } from '../../lib/time';
import { type AppOutputs, authTrpc, trpc } from '../../lib/trpc';

type Limits = AppOutputs['billing']['plans'][number]['limits'];

const LIMIT_LABELS: Record<keyof Limits, string> = {
  max_seats: 'Members',
  max_teams: 'Teams',
  monthly_notifications: 'Notifications this month',
  webhooks: 'Webhooks',
  agents: 'Agents',
};

const amount = (value: number | null) => (value === null ? 'unlimited' : value.toLocaleString('en'));

function Usage() {
  const usage = useQuery(trpc.admin.usage.queryOptions());
  if (usage.isPending) return <Loading />;
  if (usage.isError) return <ErrorNotice error={usage.error} />;
  return (
    <dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-2" aria-label="Usage">
      {(Object.keys(LIMIT_LABELS) as (keyof Limits)[]).map((key) => {
        const { limit, current } = usage.data.limits[key];
        return (
          <div key={key} className="flex justify-between gap-2 border-b border-gray-100 py-1">
            <dt className="text-gray-800">{LIMIT_LABELS[key]}</dt>
            <dd className="text-gray-900">
              {current === null ? 'not counted' : current.toLocaleString('en')} of {amount(limit)}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

/** The plan, its usage, and the way to another plan: a hosted checkout, then the portal. */
export function BillingPanel() {
  const me = useQuery(authTrpc.accounts.me.queryOptions());
  const checkoutState = useLocation().searchParams.get('checkout');
  const plans = useQuery(trpc.billing.plans.queryOptions());
  const subscription = useQuery(trpc.billing.subscription.queryOptions());
  const leave = { onSuccess: ({ url }: { url: string }) => window.location.assign(url) };
  const checkout = useMutation(trpc.billing.checkout.mutationOptions(leave));
  const portal = useMutation(trpc.billing.portal.mutationOptions(leave));
  const unconfigured = errorStatus(subscription.error) === 503;
  const current = subscription.data?.plan.code;
  return (
    <section className={cardClass} aria-labelledby="billing-heading">
      <h2 id="billing-heading" className="text-lg font-semibold text-gray-900">
        Billing
      </h2>
      {checkoutState === 'done' && (
        <Notice tone="success">Thank you. The plan changes as soon as the payment is confirmed.</Notice>
      )}
      {unconfigured ? (
        <Notice>
          Billing is not configured on this server: its operator puts organizations on a plan (
          <code>pnpm org:plan</code>).
        </Notice>
      ) : subscription.isError ? (
        <ErrorNotice error={subscription.error} />
      ) : subscription.data ? (
        <p className="text-sm text-gray-900">
          Plan <strong>{subscription.data.plan.name}</strong> · {subscription.data.status.replace('_', ' ')}
          {subscription.data.current_period_end &&
            ` · renews ${formatDateTime(subscription.data.current_period_end)}`}
          {subscription.data.cancel_at_period_end && ' · ends at the end of the period'}
        </p>
      ) : (
        <Loading />
      )}
      {me.data && can(me.data.permissions, 'org.manage') && <Usage />}
      {checkout.error ? <ErrorNotice error={checkout.error} /> : null}
      {portal.error ? <ErrorNotice error={portal.error} /> : null}
      <div className="flex flex-wrap gap-2">
        {plans.data
          ?.filter((plan) => plan.purchasable && plan.code !== current)
          .map((plan) => (
            <Button
              key={plan.id}
              variant="primary"
              disabled={checkout.isPending}
              onClick={() => checkout.mutate({ plan_id: plan.id })}
            >
              Upgrade to {plan.name}
            </Button>
          ))}
        {subscription.data?.customer && (
          <Button disabled={portal.isPending} onClick={() => portal.mutate()}>
            Manage billing
          </Button>
        )}
      </div>
    </section>
  );
}
