import type { HttpClient } from '../harness';
import { SoftAuthenticator } from '../harness/soft-authenticator';
import type { Walk } from './example-calls';

type Options = { challenge: string; rp: { id: string }; user: { id: string } };

/** Passkeys of the owner (/auth): added from a device, named, signing in, confirming a risky answer. */
export async function passkeys({ server, record }: Walk, ownerAuth: HttpClient, orgId: string) {
  const call = record.on('auth');
  const device = new SoftAuthenticator(server.deps.env.APP_URL);
  const options = await call<Options>(ownerAuth, 'POST /passkeys/registration-options');
  const passkey = await call<{ id: string }>(ownerAuth, 'POST /passkeys', {
    body: { response: device.register(options), name: 'Work laptop' },
  });
  await call(ownerAuth, 'GET /passkeys');
  const id = { id: passkey.id };
  await call(ownerAuth, 'PATCH /passkeys/{id}', { params: id, body: { name: 'Laptop (Touch ID)' } });
  const signIn = await call<{ challenge: string }>(server.auth, 'POST /passkeys/sign-in-options');
  await call(server.auth, 'POST /passkeys/sign-in', {
    body: { response: device.assert(signIn), org_id: orgId },
  });
  const verify = await call<{ challenge: string }>(ownerAuth, 'POST /passkeys/verify-options');
  await call(ownerAuth, 'POST /passkeys/verify', { body: { response: device.assert(verify) } });
  await call(ownerAuth, 'DELETE /passkeys/{id}', { params: id });
}
