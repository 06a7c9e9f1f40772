import { statsProcedures } from '@beckon/contracts/stats/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { getStats } from './stats.service';

export const statsRouter = router({
  get: implement(permissionProcedure('items.read'), statsProcedures.get).query(({ ctx }) =>
    getStats(ctx.deps, ctx.identity),
  ),
});
