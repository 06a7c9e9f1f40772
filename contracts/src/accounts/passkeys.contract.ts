import { z } from 'zod';
import type { Meta } from '../meta';

/** A passkey as its owner sees it (never the key material). */
export const ZPasskey = z
  .object({
    id: z.uuid(),
    name: z.string(),
    transports: z
      .array(z.string())
      .describe('How the browser reaches the authenticator (internal, usb, hybrid…)'),
    synced: z.boolean().describe('A multi-device passkey (kept by a password manager or platform account)'),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .meta({ id: 'Passkey' });
export type PasskeyView = z.infer<typeof ZPasskey>;

export const ZPasskeyName = z.string().trim().min(1).max(100);

/**
 * What the browser's `navigator.credentials` answered, as `@simplewebauthn/browser` serialises it
 * (RegistrationResponseJSON / AuthenticationResponseJSON); the WebAuthn library checks the rest.
 */
export const ZWebAuthnResponse = z
  .looseObject({
    id: z.string().min(1).max(1400),
    rawId: z.string().min(1).max(1400),
    type: z.literal('public-key'),
    response: z.record(z.string(), z.unknown()),
    clientExtensionResults: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WebAuthnResponse' });
export type WebAuthnResponse = z.input<typeof ZWebAuthnResponse>;

/** Options for `navigator.credentials.create()` / `.get()` (PublicKeyCredential*OptionsJSON). */
export const ZWebAuthnOptions = z
  .looseObject({ challenge: z.string().describe('Single-use, valid for five minutes') })
  .meta({ id: 'WebAuthnOptions' });

export const ZRegisterPasskeyInput = z.strictObject({
  response: ZWebAuthnResponse,
  name: ZPasskeyName.optional().describe('Shown in the list; "Passkey" and the date when absent'),
});
export const ZRenamePasskeyInput = z.strictObject({ id: z.uuid(), name: ZPasskeyName });
export const ZPasskeyId = z.strictObject({ id: z.uuid() });
export const ZPasskeySignInInput = z.strictObject({
  response: ZWebAuthnResponse,
  org_id: z
    .uuid()
    .optional()
    .describe('The organization to sign in to, when a member (else the personal workspace)'),
});
export const ZPasskeyVerifyInput = z.strictObject({ response: ZWebAuthnResponse });

/** A fresh proof of presence on the current session (step-up before a risky answer). */
export const ZSessionVerification = z
  .object({
    method: z
      .string()
      .describe('How the person last proved presence on this session: passkey, magic_link, …'),
    verified_at: z.string(),
  })
  .meta({ id: 'SessionVerification' });

export const ZDeletedPasskey = z.object({ id: z.uuid(), deleted: z.literal(true) });

const tags = ['passkeys'];
const protect = true;
export const passkeyMeta = {
  list: {
    openapi: { method: 'GET', path: '/passkeys', protect, tags, summary: "The signed-in person's passkeys" },
  },
  registrationOptions: {
    openapi: {
      method: 'POST',
      path: '/passkeys/registration-options',
      protect,
      tags,
      summary: 'Options to create a passkey with (navigator.credentials.create)',
    },
  },
  register: {
    status: 201,
    openapi: {
      method: 'POST',
      path: '/passkeys',
      protect,
      tags,
      summary: "Add a passkey from the browser's answer to the registration options",
    },
  },
  rename: {
    openapi: { method: 'PATCH', path: '/passkeys/{id}', protect, tags, summary: 'Rename a passkey' },
  },
  delete: {
    openapi: {
      method: 'DELETE',
      path: '/passkeys/{id}',
      protect,
      tags,
      summary: 'Delete a passkey: it no longer signs in',
    },
  },
  signInOptions: {
    openapi: {
      method: 'POST',
      path: '/passkeys/sign-in-options',
      protect: false,
      tags,
      summary: 'Options to sign in with a passkey (navigator.credentials.get, any discoverable passkey)',
    },
  },
  signIn: {
    openapi: {
      method: 'POST',
      path: '/passkeys/sign-in',
      protect: false,
      tags,
      summary: 'Sign in with a passkey: a session grant',
    },
  },
  verifyOptions: {
    openapi: {
      method: 'POST',
      path: '/passkeys/verify-options',
      protect,
      tags,
      summary: "Options to confirm presence with one of the signed-in person's passkeys (step-up)",
    },
  },
  verify: {
    openapi: {
      method: 'POST',
      path: '/passkeys/verify',
      protect,
      tags,
      summary: 'Confirm presence with a passkey: the session counts as verified now (step-up)',
      description:
        'Items with `require_reauth` accept answers from a session verified within their `within_minutes`.',
    },
  },
} satisfies Record<string, Meta>;
