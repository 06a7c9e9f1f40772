import { billingProcedures } from '@beckon/contracts/billing/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { authedProcedure, permissionProcedure } from '../../trpc/procedures';
import { getSubscription, listPlans, openPortal, startCheckout } from './billing.service';

const billing = permissionProcedure('org.billing');

export const billingRouter = router({
  plans: implement(authedProcedure, billingProcedures.plans).query(({ ctx }) => listPlans(ctx.deps)),
  subscription: implement(billing, billingProcedures.subscription).query(({ ctx }) =>
    getSubscription(ctx.deps, ctx.identity),
  ),
  checkout: implement(billing, billingProcedures.checkout).mutation(({ ctx, input }) =>
    startCheckout(ctx.deps, ctx.identity, input.plan_id),
  ),
  portal: implement(billing, billingProcedures.portal).mutation(({ ctx }) =>
    openPortal(ctx.deps, ctx.identity),
  ),
});
