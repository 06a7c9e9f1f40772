import { z } from 'zod';
import type { Meta } from '../meta';

export const MAGIC_LINK_MINUTES = 15;

/** An address that can receive a sign-in link (or sign in at once in development). */
export const ZEmailAddress = z.email().max(320);

export const ZRequestMagicLinkInput = z.strictObject({
  email: z
    .string()
    .max(2000)
    .describe('Any text: the answer is the same 200 (a link goes only to a well-formed address)'),
  org_id: z.uuid().optional().describe('Organization to sign in to, if the user is a member'),
});
export type RequestMagicLinkInput = z.infer<typeof ZRequestMagicLinkInput>;

export const ZRequestMagicLinkOutput = z.object({
  message: z.string(),
  token: z.string().optional().describe('Only in development mode (SMTP_HOST unset)'),
});

export const ZVerifyMagicLinkInput = z.strictObject({ token: z.string().min(1).max(200) });

export const ZDevLoginInput = ZRequestMagicLinkInput.extend({ email: ZEmailAddress });

const tags = ['auth'];
export const magicLinkMeta = {
  request: {
    openapi: {
      method: 'POST',
      path: '/magic-link',
      protect: false,
      tags,
      summary: 'Email a sign-in link',
      description:
        'Always answers 200 with the same message, whether or not the address has an account. The link is valid 15 minutes and works once.',
    },
  },
  verify: {
    openapi: {
      method: 'GET',
      path: '/verify',
      protect: false,
      tags,
      summary: 'Exchange a link token for a session',
      description:
        'Creates the user and a personal workspace on first sign-in. 400 when the token is unknown, expired or already used.',
    },
  },
  devLogin: {
    openapi: {
      method: 'POST',
      path: '/dev-login',
      protect: false,
      tags,
      summary: 'Development sign-in without mail (DEV_LOGIN_ENABLED=true only; 404 otherwise)',
      description:
        'Accepts any email unverified. Never enable it in production (the server refuses to start).',
    },
  },
} satisfies Record<string, Meta>;
