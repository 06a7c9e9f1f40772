import type { SessionGrant } from '@beckon/contracts/accounts/account.contract';
import {
  MAGIC_LINK_MINUTES,
  type RequestMagicLinkInput,
  ZEmailAddress,
} from '@beckon/contracts/accounts/magic-link.contract';
import { uuidv7 } from 'uuidv7';
import { generateToken, hashToken } from '../../auth/tokens';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { countNow } from '../../rate-limit/direct';
import { signInByEmail } from './sign-in';
import { normalizeEmail } from './users';

const MESSAGE = 'If the address can receive mail, a sign-in link is on its way.';

/**
 * Stores a link token (hashed) and mails the link. Unknown addresses take the same path (the
 * account is created at verification), so the answer and its timing say nothing about them.
 * An address asked for more often than RATE_LIMIT_SIGN_IN_EMAIL (5 in 15 minutes) is a 429, for
 * known and unknown addresses alike (so the endpoint cannot flood a mailbox).
 */
export async function requestMagicLink(
  deps: Deps,
  input: RequestMagicLinkInput,
  /** Where the mailed link leads: the dashboard by default, or an OAuth authorization in progress. */
  linkBase = deps.env.APP_URL,
) {
  // "Always 200, whatever the email": one that cannot receive mail gets the same answer, and nothing.
  if (!ZEmailAddress.safeParse(input.email.trim()).success) return { message: MESSAGE };
  const token = generateToken();
  const email = normalizeEmail(input.email);
  await countNow(deps, 'sign_in_email', [`email:${email}`]);
  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + MAGIC_LINK_MINUTES * 60_000);
  // An unknown org_id is stored as null rather than refused: the answer must not reveal it.
  await deps.sql`
    insert into magic_link_tokens (id, token_hash, email, org_id, created_at, expires_at)
    select ${uuidv7()}, ${hashToken(token)}, ${email},
           (select id from organizations where id = ${input.org_id ?? null}::uuid), ${now}, ${expiresAt}`;
  const link = `${linkBase}/verify?token=${encodeURIComponent(token)}`;
  if (!deps.mailer.configured) {
    // The link to open, since nothing is mailed; the answer carries its token.
    deps.log.info(
      { email, token, link },
      'sign-in link (development mode: SMTP_HOST is unset, nothing is mailed)',
    );
    return { message: MESSAGE, token };
  }
  await deps.mailer.send({
    to: email,
    subject: 'Your Beckon sign-in link',
    text: `Sign in to Beckon with this link (valid ${MAGIC_LINK_MINUTES} minutes, usable once):\n\n${link}\n\nIf you did not ask for it, ignore this message.`,
  });
  return { message: MESSAGE };
}

/**
 * Uses a link token once: the update that marks it used is the check, so of two racing
 * verifications only one sees the row. The sign-in happens in the same transaction.
 */
export async function verifyMagicLink(deps: Deps, token: string): Promise<SessionGrant> {
  const now = deps.clock();
  return deps.sql.begin(async (tx) => {
    const [link] = await tx<{ email: string; org_id: string | null }[]>`
      update magic_link_tokens set used_at = ${now}
       where token_hash = ${hashToken(token)} and used_at is null and expires_at > ${now}
      returning email, org_id`;
    if (!link) throw AppError.invalid({ token: 'invalid, expired or already used' });
    const { user: _user, ...grant } = await signInByEmail(
      tx,
      { email: link.email },
      { orgId: link.org_id, method: 'magic_link', now },
    );
    return grant;
  });
}

/** DEV_LOGIN_ENABLED only: signs in as any address at once, as a verified link would. */
export async function devLogin(deps: Deps, input: RequestMagicLinkInput): Promise<SessionGrant> {
  if (!deps.env.DEV_LOGIN_ENABLED) throw AppError.notFound();
  const now = deps.clock();
  return deps.sql.begin(async (tx) => {
    const { user: _user, ...grant } = await signInByEmail(
      tx,
      { email: input.email },
      { orgId: input.org_id ?? null, method: 'dev_login', now },
    );
    return grant;
  });
}
