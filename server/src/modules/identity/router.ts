import { router } from '../../trpc/init';
import { authedProcedure } from '../../trpc/procedures';
import { identityView, whoAmIMeta, ZIdentityView } from './identity.contract';

export const identityRouter = router({
  whoAmI: authedProcedure
    .meta(whoAmIMeta)
    .output(ZIdentityView)
    .query(({ ctx }) => identityView(ctx.identity)),
});
