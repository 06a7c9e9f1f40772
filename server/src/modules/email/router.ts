import { router } from '../../trpc/init';
import { sessionPermissionProcedure, sessionProcedure } from '../../trpc/procedures';
import { emailMeta, ZEmailSettings, ZUpdateEmailSettingsInput } from './email.contract';
import { getEmailSettings, updateEmailSettings } from './email-settings.service';

/** A person's email channel: their own session, in the current organization. */
export const emailRouter = router({
  settings: sessionProcedure
    .meta(emailMeta.settings)
    .output(ZEmailSettings)
    .query(({ ctx }) => getEmailSettings(ctx.deps, ctx.identity)),
  updateSettings: sessionPermissionProcedure('items.read')
    .meta(emailMeta.updateSettings)
    .input(ZUpdateEmailSettingsInput)
    .output(ZEmailSettings)
    .mutation(({ ctx, input }) => updateEmailSettings(ctx.deps, ctx.identity, input)),
});
