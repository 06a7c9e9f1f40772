import { identityProcedures } from '@beckon/contracts/identity/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { authedProcedure } from '../../trpc/procedures';
import { identityView } from './identity-view';

export const identityRouter = router({
  whoAmI: implement(authedProcedure, identityProcedures.whoAmI).query(({ ctx }) =>
    identityView(ctx.identity),
  ),
});
