import type { Idp } from './state';

/** Who signed in at the provider, as far as the provider vouches for it. */
export type ExternalProfile = {
  /** The provider's stable account id (never the email, which can change hands). */
  providerUserId: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
};

/** The per-flow secrets, recomputed at the callback from the state's nonce. */
export type Flow = { nonce: string; codeVerifier: string };

export type ExternalProvider = {
  idp: Idp;
  /** Where the browser is sent to sign in. */
  authorizationUrl(state: string, flow: Flow): URL;
  /**
   * Exchanges the code and returns the account; throws on anything that cannot be trusted.
   * `callback` holds the callback's other parameters (idp_c sends the name there, once).
   */
  profile(code: string, flow: Flow, callback: Record<string, string>): Promise<ExternalProfile>;
};
