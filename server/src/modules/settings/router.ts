import { z } from 'zod';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { settingMeta, ZPutSettingInput, ZSetting } from './settings.contract';
import { listSettings, putSetting } from './settings.service';

export const settingsRouter = router({
  list: permissionProcedure('items.read')
    .meta(settingMeta.list)
    .output(z.array(ZSetting))
    .query(({ ctx }) => listSettings(ctx.deps, ctx.identity)),
  put: permissionProcedure('org.manage')
    .meta(settingMeta.put)
    .input(ZPutSettingInput)
    .output(ZSetting)
    .mutation(({ ctx, input }) => putSetting(ctx.deps, ctx.identity, input)),
});
