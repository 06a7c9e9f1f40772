import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Env } from '../env';
import { resolveSigningKey } from '../signing-key';

/**
 * What a link of an item mail may do, signed into the link itself (HMAC-SHA256 with the link
 * secret): answer with one of the mail's choices, acknowledge, or turn the person's mail off.
 * `n` is the mail's nonce: the first use of any of its answer links claims it (email_link_uses).
 */
export type LinkClaim =
  | { k: 'answer'; o: string; u: string; i: string; n: string; e: number; c: number }
  | { k: 'ack'; o: string; u: string; i: string; n: string; e: number }
  | { k: 'unsubscribe'; o: string; u: string; e: number }
  // A notification's answer token: the choice is the action pressed (modules/items/operations/answer-from-push.ts).
  | { k: 'push'; o: string; u: string; i: string; n: string; e: number };
export type ItemClaim = Extract<LinkClaim, { k: 'answer' | 'ack' }>;

/** Unsubscribing keeps working long after the mail (RFC 8058 asks it to). */
export const UNSUBSCRIBE_TTL_HOURS = 24 * 365;

/**
 * The key of mail links: EMAIL_LINK_SECRET, else a key derived from the OAuth signing key (never
 * that key itself), resolved on first use. One per process, made by createDeps (`deps.mailLinkKey`).
 */
export class MailLinkKey {
  private secret: Promise<Buffer> | undefined;

  constructor(private readonly env: Env) {}

  get(): Promise<Buffer> {
    this.secret ??= this.env.EMAIL_LINK_SECRET
      ? Promise.resolve(Buffer.from(this.env.EMAIL_LINK_SECRET))
      : resolveSigningKey(this.env).then((key) =>
          createHmac('sha256', key).update('beckon email links v1').digest(),
        );
    return this.secret;
  }
}

const mac = (secret: Buffer, payload: string) =>
  createHmac('sha256', secret).update(`v1.${payload}`).digest('base64url');

export async function signLink(key: MailLinkKey, claim: LinkClaim): Promise<string> {
  const payload = Buffer.from(JSON.stringify(claim)).toString('base64url');
  return `${payload}.${mac(await key.get(), payload)}`;
}

/** The claim of a link whose signature is ours, else null (expiry is the caller's to check). */
export async function verifyLink(key: MailLinkKey, token: string): Promise<LinkClaim | null> {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(await key.get(), payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LinkClaim;
  } catch {
    return null;
  }
}

export const expiresAt = (now: Date, hours: number) => Math.floor(now.getTime() / 1000) + hours * 3600;
export const isExpired = (claim: LinkClaim, now: Date) => claim.e * 1000 <= now.getTime();

/** Where a link lands: the resource process's confirmation pages (http/email-pages.ts). */
export const linkUrl = (env: Env, page: 'answer' | 'unsubscribe', token: string) =>
  `${env.RESOURCE_URL}/api/email/${page}?token=${encodeURIComponent(token)}`;
