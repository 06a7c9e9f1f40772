import { z } from 'zod';
import { router } from '../../trpc/init';
import {
  authedProcedure,
  publicProcedure,
  sessionPermissionProcedure,
  sessionProcedure,
} from '../../trpc/procedures';
import {
  accountMeta,
  ZAccountView,
  ZCreateOrgInput,
  ZLogoutOutput,
  ZOrganization,
  ZSignInOptions,
  ZSwitchOrgInput,
} from './account.contract';
import {
  createOrg,
  describeAccount,
  listOrganizations,
  logout,
  signInOptions,
  switchOrg,
} from './account.service';
import {
  apiKeyMeta,
  ZApiKey,
  ZCreateApiKeyInput,
  ZCreatedApiKey,
  ZRevokeApiKeyInput,
} from './api-keys.contract';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.service';
import {
  magicLinkMeta,
  ZDevLoginInput,
  ZRequestMagicLinkInput,
  ZRequestMagicLinkOutput,
  ZVerifyMagicLinkInput,
} from './magic-link.contract';
import { devLogin, requestMagicLink, verifyMagicLink } from './magic-link.service';
import { ZSessionGrant } from './sessions';

/** The authorization process's account operations, served under /auth. */
export const accountsRouter = router({
  requestMagicLink: publicProcedure
    .meta(magicLinkMeta.request)
    .input(ZRequestMagicLinkInput)
    .output(ZRequestMagicLinkOutput)
    .mutation(({ ctx, input }) => requestMagicLink(ctx.deps, input)),
  verifyMagicLink: publicProcedure
    .meta(magicLinkMeta.verify)
    .input(ZVerifyMagicLinkInput)
    .output(ZSessionGrant)
    .query(({ ctx, input }) => verifyMagicLink(ctx.deps, input.token)),
  signInOptions: publicProcedure
    .meta(accountMeta.signInOptions)
    .output(ZSignInOptions)
    .query(({ ctx }) => signInOptions(ctx.deps)),
  devLogin: publicProcedure
    .meta(magicLinkMeta.devLogin)
    .input(ZDevLoginInput)
    .output(ZSessionGrant)
    .mutation(({ ctx, input }) => devLogin(ctx.deps, input)),
  me: authedProcedure
    .meta(accountMeta.me)
    .output(ZAccountView)
    .query(({ ctx }) => describeAccount(ctx.deps, ctx.identity)),
  logout: sessionProcedure
    .meta(accountMeta.logout)
    .output(ZLogoutOutput)
    .mutation(({ ctx }) => logout(ctx.deps, ctx.identity)),
  listOrgs: sessionProcedure
    .meta(accountMeta.listOrgs)
    .output(z.array(ZOrganization))
    .query(({ ctx }) => listOrganizations(ctx.deps, ctx.identity)),
  createOrg: sessionProcedure
    .meta(accountMeta.createOrg)
    .input(ZCreateOrgInput)
    .output(ZOrganization)
    .mutation(({ ctx, input }) => createOrg(ctx.deps, ctx.identity, input)),
  switchOrg: sessionProcedure
    .meta(accountMeta.switchOrg)
    .input(ZSwitchOrgInput)
    .output(ZSessionGrant)
    .mutation(({ ctx, input }) => switchOrg(ctx.deps, ctx.identity, input.org_id)),
  createApiKey: sessionPermissionProcedure('agents.manage')
    .meta(apiKeyMeta.create)
    .input(ZCreateApiKeyInput)
    .output(ZCreatedApiKey)
    .mutation(({ ctx, input }) => createApiKey(ctx.deps, ctx.identity, input)),
  listApiKeys: sessionProcedure
    .meta(apiKeyMeta.list)
    .output(z.array(ZApiKey))
    .query(({ ctx }) => listApiKeys(ctx.deps, ctx.identity)),
  revokeApiKey: sessionProcedure
    .meta(apiKeyMeta.revoke)
    .input(ZRevokeApiKeyInput)
    .output(ZApiKey)
    .mutation(({ ctx, input }) => revokeApiKey(ctx.deps, ctx.identity, input.key_id)),
});
