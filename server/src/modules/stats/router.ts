import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { statsMeta, ZStats } from './stats.contract';
import { getStats } from './stats.service';

export const statsRouter = router({
  get: permissionProcedure('items.read')
    .meta(statsMeta.get)
    .output(ZStats)
    .query(({ ctx }) => getStats(ctx.deps, ctx.identity)),
});
