import { z } from 'zod';
import { mutation, query } from '../procedure';
import { billingMeta, ZCheckoutInput, ZPlan, ZRedirect, ZSubscription } from './billing.contract';

export const billingProcedures = {
  plans: query({ meta: billingMeta.plans, output: z.array(ZPlan) }),
  subscription: query({ meta: billingMeta.subscription, output: ZSubscription }),
  checkout: mutation({ meta: billingMeta.checkout, input: ZCheckoutInput, output: ZRedirect }),
  portal: mutation({ meta: billingMeta.portal, output: ZRedirect }),
};
