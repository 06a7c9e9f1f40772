import type { WebAuthnResponse } from '@beckon/contracts/accounts/passkeys.contract';
import {
  browserSupportsWebAuthn,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import { authClient } from '../../lib/trpc';

/** The browser's answer as the API takes it (the library's JSON types are interfaces, not records). */
const wire = (response: object) => response as WebAuthnResponse;

/** Whether this browser can use passkeys at all (else the buttons stay hidden). */
export const passkeysSupported = () => browserSupportsWebAuthn();

/** Creates a passkey on this device for the signed-in person and stores it under `name`. */
export async function addPasskey(name?: string) {
  const options = await authClient.accounts.passkeyRegistrationOptions.mutate();
  const response = await startRegistration({
    optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
  });
  return authClient.accounts.registerPasskey.mutate({ response: wire(response), ...(name ? { name } : {}) });
}

/** Signs in with any passkey of this site the device holds: the session grant. */
export async function signInWithPasskey() {
  const options = await authClient.accounts.passkeySignInOptions.mutate();
  const response = await startAuthentication({
    optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
  });
  return authClient.accounts.passkeySignIn.mutate({ response: wire(response) });
}

/** The step-up: the signed-in person confirms presence with one of their passkeys. */
export async function confirmWithPasskey() {
  const options = await authClient.accounts.passkeyVerifyOptions.mutate();
  const response = await startAuthentication({
    optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
  });
  return authClient.accounts.verifyPasskey.mutate({ response: wire(response) });
}
