import { z } from 'zod';
import { router } from '../../trpc/init';
import { authedProcedure, permissionProcedure } from '../../trpc/procedures';
import { billingMeta, ZCheckoutInput, ZPlan, ZRedirect, ZSubscription } from './billing.contract';
import { getSubscription, listPlans, openPortal, startCheckout } from './billing.service';

const billing = permissionProcedure('org.billing');

export const billingRouter = router({
  plans: authedProcedure
    .meta(billingMeta.plans)
    .output(z.array(ZPlan))
    .query(({ ctx }) => listPlans(ctx.deps)),
  subscription: billing
    .meta(billingMeta.subscription)
    .output(ZSubscription)
    .query(({ ctx }) => getSubscription(ctx.deps, ctx.identity)),
  checkout: billing
    .meta(billingMeta.checkout)
    .input(ZCheckoutInput)
    .output(ZRedirect)
    .mutation(({ ctx, input }) => startCheckout(ctx.deps, ctx.identity, input.plan_id)),
  portal: billing
    .meta(billingMeta.portal)
    .output(ZRedirect)
    .mutation(({ ctx }) => openPortal(ctx.deps, ctx.identity)),
});
