import type { Clock } from '../../../clock';
import type { Env } from '../../../env';
import { codeHostProvider } from './code-host-provider';
import { deviceVendorProvider } from './device-vendor-provider';
import type { ExternalProvider } from './provider';
import type { Idp } from './state';
import { webIdentityProvider } from './web-identity-provider';

/** How each provider calls back: idp_c posts a form (response_mode=form_post), the others redirect. */
export const CALLBACK_METHOD: Record<Idp, 'GET' | 'POST'> = { idp_a: 'GET', idp_b: 'GET', idp_c: 'POST' };

/** Where a provider sends the browser back: registered with the provider, so it must be exact. */
export const redirectUriFor = (env: Env, idp: Idp) =>
  `${env.ISSUER_URL.replace(/\/+$/, '')}/auth/oauth/${idp}/callback`;

/**
 * The providers this deployment can sign in with: one is enabled only when every one of its
 * variables is set, so a half-configured provider stays off instead of failing at the provider.
 */
export function enabledProviders(env: Env, clock: Clock): Map<Idp, ExternalProvider> {
  const providers = new Map<Idp, ExternalProvider>();
  if (env.IDP_A_CLIENT_ID && env.IDP_A_CLIENT_SECRET) {
    providers.set(
      'idp_a',
      codeHostProvider(env.IDP_A_CLIENT_ID, env.IDP_A_CLIENT_SECRET, redirectUriFor(env, 'idp_a')),
    );
  }
  if (env.IDP_B_CLIENT_ID && env.IDP_B_CLIENT_SECRET) {
    providers.set(
      'idp_b',
      webIdentityProvider(env.IDP_B_CLIENT_ID, env.IDP_B_CLIENT_SECRET, redirectUriFor(env, 'idp_b'), clock),
    );
  }
  if (env.IDP_C_CLIENT_ID && env.IDP_C_TEAM_ID && env.IDP_C_KEY_ID && env.IDP_C_PRIVATE_KEY) {
    const config = {
      clientId: env.IDP_C_CLIENT_ID,
      teamId: env.IDP_C_TEAM_ID,
      keyId: env.IDP_C_KEY_ID,
      privateKey: env.IDP_C_PRIVATE_KEY,
    };
    providers.set('idp_c', deviceVendorProvider(config, redirectUriFor(env, 'idp_c'), clock));
  }
  return providers;
}
