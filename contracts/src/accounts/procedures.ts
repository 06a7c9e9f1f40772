import { z } from 'zod';
import { mutation, query } from '../procedure';
import {
  accountMeta,
  ZAccountView,
  ZCreateOrgInput,
  ZLogoutOutput,
  ZOrganization,
  ZSessionGrant,
  ZSignInOptions,
  ZSwitchOrgInput,
} from './account.contract';
import {
  apiKeyMeta,
  ZApiKey,
  ZCreateApiKeyInput,
  ZCreatedApiKey,
  ZRevokeApiKeyInput,
} from './api-keys.contract';
import {
  magicLinkMeta,
  ZDevLoginInput,
  ZRequestMagicLinkInput,
  ZRequestMagicLinkOutput,
  ZVerifyMagicLinkInput,
} from './magic-link.contract';

export const accountsProcedures = {
  requestMagicLink: mutation({
    meta: magicLinkMeta.request,
    input: ZRequestMagicLinkInput,
    output: ZRequestMagicLinkOutput,
  }),
  verifyMagicLink: query({ meta: magicLinkMeta.verify, input: ZVerifyMagicLinkInput, output: ZSessionGrant }),
  signInOptions: query({ meta: accountMeta.signInOptions, output: ZSignInOptions }),
  devLogin: mutation({ meta: magicLinkMeta.devLogin, input: ZDevLoginInput, output: ZSessionGrant }),
  me: query({ meta: accountMeta.me, output: ZAccountView }),
  logout: mutation({ meta: accountMeta.logout, output: ZLogoutOutput }),
  listOrgs: query({ meta: accountMeta.listOrgs, output: z.array(ZOrganization) }),
  createOrg: mutation({ meta: accountMeta.createOrg, input: ZCreateOrgInput, output: ZOrganization }),
  switchOrg: mutation({ meta: accountMeta.switchOrg, input: ZSwitchOrgInput, output: ZSessionGrant }),
  createApiKey: mutation({ meta: apiKeyMeta.create, input: ZCreateApiKeyInput, output: ZCreatedApiKey }),
  listApiKeys: query({ meta: apiKeyMeta.list, output: z.array(ZApiKey) }),
  revokeApiKey: mutation({ meta: apiKeyMeta.revoke, input: ZRevokeApiKeyInput, output: ZApiKey }),
};
