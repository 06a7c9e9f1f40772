import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Env } from '../../env';
import { readCookie } from '../../oauth/cookies';

/**
 * A Slack OAuth round trip (installing the app, linking a person's Slack account) is bound to the
 * browser that started it: the start answers a random value in a cookie and puts its hash in the
 * signed state; Slack's redirect back counts only in a browser that sends that cookie. A state
 * (or a whole authorize URL) handed to someone else is worth nothing in their browser.
 */
export type SlackFlow = 'install' | 'link';

const COOKIES: Record<SlackFlow, string> = { install: 'beckon_slack_install', link: 'beckon_slack_link' };
/** As long as the signed state of either flow lives. */
export const FLOW_TTL_SECONDS = 15 * 60;

const digest = (value: string) => createHash('sha256').update(value).digest('base64url');

/** The cookie reaches only the callback (under /webhooks/slack), over https when the API is. */
function cookie(env: Env, flow: SlackFlow, value: string, maxAge: number): string {
  const secure = env.RESOURCE_URL.startsWith('https:') ? '; Secure' : '';
  return `${COOKIES[flow]}=${value}; Path=/webhooks/slack; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

/** A new binding: the Set-Cookie value for the browser, and the hash the signed state carries. */
export function bindBrowser(env: Env, flow: SlackFlow): { cookie: string; browser: string } {
  const value = randomBytes(24).toString('base64url');
  return { cookie: cookie(env, flow, value, FLOW_TTL_SECONDS), browser: digest(value) };
}

/** Whether the request's cookies carry the value whose hash the state names. */
export function sameBrowser(cookieHeader: string | undefined, flow: SlackFlow, browser: unknown): boolean {
  const value = readCookie(cookieHeader, COOKIES[flow]);
  if (!value || typeof browser !== 'string') return false;
  const given = Buffer.from(digest(value));
  const expected = Buffer.from(browser);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The Set-Cookie value that ends a binding (the flow is over, whatever its outcome). */
export const unbindBrowser = (env: Env, flow: SlackFlow) => cookie(env, flow, '', 0);
