import { accountsProcedures } from '@beckon/contracts/accounts/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import {
  authedProcedure,
  publicProcedure,
  sessionPermissionProcedure,
  sessionProcedure,
} from '../../trpc/procedures';
import {
  createOrg,
  describeAccount,
  listOrganizations,
  logout,
  signInOptions,
  switchOrg,
} from './account.service';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service';
import { devLogin, requestMagicLink, verifyMagicLink } from './magic-link.service';

/** The authorization process's account operations, served under /auth. */
export const accountsRouter = router({
  requestMagicLink: implement(publicProcedure, accountsProcedures.requestMagicLink).mutation(
    ({ ctx, input }) => requestMagicLink(ctx.deps, input),
  ),
  verifyMagicLink: implement(publicProcedure, accountsProcedures.verifyMagicLink).query(({ ctx, input }) =>
    verifyMagicLink(ctx.deps, input.token),
  ),
  signInOptions: implement(publicProcedure, accountsProcedures.signInOptions).query(({ ctx }) =>
    signInOptions(ctx.deps),
  ),
  devLogin: implement(publicProcedure, accountsProcedures.devLogin).mutation(({ ctx, input }) =>
    devLogin(ctx.deps, input),
  ),
  me: implement(authedProcedure, accountsProcedures.me).query(({ ctx }) =>
    describeAccount(ctx.deps, ctx.identity),
  ),
  logout: implement(sessionProcedure, accountsProcedures.logout).mutation(({ ctx }) =>
    logout(ctx.deps, ctx.identity),
  ),
  listOrgs: implement(sessionProcedure, accountsProcedures.listOrgs).query(({ ctx }) =>
    listOrganizations(ctx.deps, ctx.identity),
  ),
  createOrg: implement(sessionProcedure, accountsProcedures.createOrg).mutation(({ ctx, input }) =>
    createOrg(ctx.deps, ctx.identity, input),
  ),
  switchOrg: implement(sessionProcedure, accountsProcedures.switchOrg).mutation(({ ctx, input }) =>
    switchOrg(ctx.deps, ctx.identity, input.org_id, ctx.token),
  ),
  createApiKey: implement(
    sessionPermissionProcedure('agents.manage'),
    accountsProcedures.createApiKey,
  ).mutation(({ ctx, input }) => createApiKey(ctx.deps, ctx.identity, input)),
  listApiKeys: implement(sessionProcedure, accountsProcedures.listApiKeys).query(({ ctx }) =>
    listApiKeys(ctx.deps, ctx.identity),
  ),
  revokeApiKey: implement(sessionProcedure, accountsProcedures.revokeApiKey).mutation(({ ctx, input }) =>
    revokeApiKey(ctx.deps, ctx.identity, input.key_id),
  ),
});
