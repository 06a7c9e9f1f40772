import type { Env } from '../../../env';

/** The service as the WebAuthn relying party: the dashboard's origin and host (PASSKEY_RP_ID). */
export function relyingParty(env: Env) {
  const app = new URL(env.APP_URL);
  return { name: 'Beckon', id: env.PASSKEY_RP_ID ?? app.hostname, origin: app.origin };
}
