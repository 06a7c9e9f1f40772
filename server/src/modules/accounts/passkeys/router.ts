import { passkeyProcedures } from '@beckon/contracts/accounts/passkey-procedures';
import { implement } from '../../../trpc/contract';
import { router } from '../../../trpc/init';
import { publicProcedure, sessionProcedure } from '../../../trpc/procedures';
import { passkeySignIn, passkeySignInOptions, passkeyVerifyOptions, verifyPasskey } from './passkey-sign-in';
import {
  deletePasskey,
  listPasskeys,
  passkeyRegistrationOptions,
  registerPasskey,
  renamePasskey,
} from './passkeys.service';

/** Passkeys (WebAuthn): managed by their person's session, signing in, and the step-up. */
export const passkeysRouter = router({
  listPasskeys: implement(sessionProcedure, passkeyProcedures.listPasskeys).query(({ ctx }) =>
    listPasskeys(ctx.deps, ctx.identity),
  ),
  passkeyRegistrationOptions: implement(
    sessionProcedure,
    passkeyProcedures.passkeyRegistrationOptions,
  ).mutation(({ ctx }) => passkeyRegistrationOptions(ctx.deps, ctx.identity)),
  registerPasskey: implement(sessionProcedure, passkeyProcedures.registerPasskey).mutation(({ ctx, input }) =>
    registerPasskey(ctx.deps, ctx.identity, input),
  ),
  renamePasskey: implement(sessionProcedure, passkeyProcedures.renamePasskey).mutation(({ ctx, input }) =>
    renamePasskey(ctx.deps, ctx.identity, input),
  ),
  deletePasskey: implement(sessionProcedure, passkeyProcedures.deletePasskey).mutation(({ ctx, input }) =>
    deletePasskey(ctx.deps, ctx.identity, input.id),
  ),
  passkeySignInOptions: implement(publicProcedure, passkeyProcedures.passkeySignInOptions).mutation(
    ({ ctx }) => passkeySignInOptions(ctx.deps),
  ),
  passkeySignIn: implement(publicProcedure, passkeyProcedures.passkeySignIn).mutation(({ ctx, input }) =>
    passkeySignIn(ctx.deps, input),
  ),
  passkeyVerifyOptions: implement(sessionProcedure, passkeyProcedures.passkeyVerifyOptions).mutation(
    ({ ctx }) => passkeyVerifyOptions(ctx.deps, ctx.identity),
  ),
  verifyPasskey: implement(sessionProcedure, passkeyProcedures.verifyPasskey).mutation(({ ctx, input }) =>
    verifyPasskey(ctx.deps, ctx.identity, input),
  ),
});
