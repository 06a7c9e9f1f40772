import type { Env } from '../env';
import { AppError } from '../errors';

/** The limits of docs/security.md, each configured as `<requests>/<window>` (env.ts). */
export const POLICY_SETTINGS = {
  /** Per credential (or client address without one) on /api, /trpc and /mcp. */
  api: 'RATE_LIMIT_API',
  /** Per client address: asking for a magic link, development sign-in, external sign-in. */
  sign_in: 'RATE_LIMIT_SIGN_IN',
  /** Per email address: magic links asked for it. */
  sign_in_email: 'RATE_LIMIT_SIGN_IN_EMAIL',
  /** Per client address: using a sign-in link, invitation previews and acceptance, provider callbacks. */
  verify: 'RATE_LIMIT_VERIFY',
  /** Per client address: the OAuth token and revocation endpoints. */
  token: 'RATE_LIMIT_TOKEN',
  /** Per client address: OAuth dynamic client registration. */
  register: 'RATE_LIMIT_REGISTER',
} as const satisfies Record<string, keyof Env>;

export type PolicyName = keyof typeof POLICY_SETTINGS;
export type Policy = { name: PolicyName; limit: number; windowSeconds: number };

export const policyOf = (env: Env, name: PolicyName): Policy => ({ name, ...env[POLICY_SETTINGS[name]] });

/** A fixed window: [start, end) in epoch milliseconds. */
export function windowAt(policy: Policy, nowMs: number): { start: number; end: number } {
  const length = policy.windowSeconds * 1000;
  const start = nowMs - (nowMs % length);
  return { start, end: start + length };
}

/** Requests counted for one subject in the current window (this one included). */
export type Verdict = { policy: Policy; count: number; resetAt: number };

export const isLimited = (verdict: Verdict) => verdict.count > verdict.policy.limit;

const secondsUntil = (at: number, nowMs: number) => Math.max(1, Math.ceil((at - nowMs) / 1000));

/**
 * The IETF draft's fields (draft-ietf-httpapi-ratelimit-headers), sent with every answer of a
 * limited surface: `RateLimit-Policy` (quota q per window w seconds) and `RateLimit` (r left,
 * t seconds to the reset).
 */
export function rateLimitHeaders(verdict: Verdict, nowMs: number): Record<string, string> {
  const { name, limit, windowSeconds } = verdict.policy;
  const remaining = Math.max(0, limit - verdict.count);
  return {
    'ratelimit-policy': `"${name}";q=${limit};w=${windowSeconds}`,
    ratelimit: `"${name}";r=${remaining};t=${secondsUntil(verdict.resetAt, nowMs)}`,
  };
}

/**
 * The 429 of a verdict over its limit: Retry-After (the end of the window), the IETF fields and
 * the specification's RateLimit-Limit / -Remaining / -Reset (only here: three more fields on
 * every answer of the busy API cost throughput, and the IETF pair says the same).
 */
export function rateLimitedError(verdict: Verdict, nowMs: number) {
  const reset = secondsUntil(verdict.resetAt, nowMs);
  return AppError.rateLimited(reset, {
    ...rateLimitHeaders(verdict, nowMs),
    'ratelimit-limit': String(verdict.policy.limit),
    'ratelimit-remaining': String(Math.max(0, verdict.policy.limit - verdict.count)),
    'ratelimit-reset': String(reset),
  });
}
