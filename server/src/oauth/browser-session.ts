import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '@beckon/db';
import { hashToken } from '../auth/tokens';
import type { Env } from '../env';
import type { OAuthAccount } from './account';
import { readCookie } from './cookies';
import { deriveKey } from './keys';

/**
 * The person's browser session behind /oauth/authorize: a cookie holding the id of one of our
 * sessions (never its token), HMAC-signed with a subkey of OAUTH_SIGNING_KEY. Changing the key
 * invalidates every cookie; revoking or expiring the session, or the person leaving the
 * organization, ends it too.
 */
export const BROWSER_SESSION_COOKIE = 'beckon_browser_session';

export type BrowserSession = OAuthAccount & { sessionId: string; expiresAt: Date };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class BrowserSessions {
  private readonly key: Buffer;
  private readonly secure: boolean;

  constructor(
    private readonly sql: Queryable,
    env: Env,
    signingKey: string,
  ) {
    this.key = deriveKey(signingKey, 'browser-session');
    this.secure = env.ISSUER_URL.startsWith('https:');
  }

  private mac(sessionId: string): string {
    return createHmac('sha256', this.key).update(sessionId).digest('base64url');
  }

  /** The session id a cookie value carries, if its signature is ours. */
  verify(value: string | undefined): string | null {
    if (!value) return null;
    const dot = value.lastIndexOf('.');
    const sessionId = value.slice(0, dot);
    if (dot < 0 || !UUID.test(sessionId)) return null;
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(this.mac(sessionId));
    return given.length === expected.length && timingSafeEqual(given, expected) ? sessionId : null;
  }

  /** The live session named by the request's cookie, scoped to a current membership. */
  async fromCookieHeader(header: string | undefined, now: Date): Promise<BrowserSession | null> {
    const sessionId = this.verify(readCookie(header, BROWSER_SESSION_COOKIE));
    if (!sessionId) return null;
    const [row] = await this.sql<{ user_id: string; org_id: string; expires_at: Date }[]>`
      select s.user_id, s.org_id, s.expires_at
        from sessions s
        join memberships m on m.user_id = s.user_id and m.org_id = s.org_id
       where s.id = ${sessionId} and s.revoked_at is null and s.expires_at > ${now}`;
    return row ? { sessionId, userId: row.user_id, orgId: row.org_id, expiresAt: row.expires_at } : null;
  }

  /**
   * The Set-Cookie value that signs this browser in with the session whose bearer token is
   * `sessionToken` (what every sign-in returns); it lasts as long as the session.
   */
  async cookieForToken(sessionToken: string, now: Date): Promise<string> {
    const [session] = await this.sql<{ id: string; expires_at: Date }[]>`
      select id, expires_at from sessions where token_hash = ${hashToken(sessionToken)}`;
    if (!session) throw new Error('the session just created is missing');
    const maxAge = Math.max(0, Math.floor((session.expires_at.getTime() - now.getTime()) / 1000));
    return this.cookie(`${session.id}.${this.mac(session.id)}`, maxAge);
  }

  clearCookie(): string {
    return this.cookie('', 0);
  }

  private cookie(value: string, maxAge: number): string {
    const secure = this.secure ? '; Secure' : '';
    return `${BROWSER_SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
  }
}
