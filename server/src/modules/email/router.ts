import { emailProcedures } from '@beckon/contracts/email/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { sessionPermissionProcedure, sessionProcedure } from '../../trpc/procedures';
import { getEmailSettings, updateEmailSettings } from './email-settings.service';

/** A person's email channel: their own session, in the current organization. */
export const emailRouter = router({
  settings: implement(sessionProcedure, emailProcedures.settings).query(({ ctx }) =>
    getEmailSettings(ctx.deps, ctx.identity),
  ),
  updateSettings: implement(
    sessionPermissionProcedure('items.read'),
    emailProcedures.updateSettings,
  ).mutation(({ ctx, input }) => updateEmailSettings(ctx.deps, ctx.identity, input)),
});
