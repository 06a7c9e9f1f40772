import { settingsProcedures } from '@beckon/contracts/settings/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { listSettings, putSetting } from './settings.service';

export const settingsRouter = router({
  list: implement(permissionProcedure('items.read'), settingsProcedures.list).query(({ ctx }) =>
    listSettings(ctx.deps, ctx.identity),
  ),
  put: implement(permissionProcedure('org.manage'), settingsProcedures.put).mutation(({ ctx, input }) =>
    putSetting(ctx.deps, ctx.identity, input),
  ),
});
