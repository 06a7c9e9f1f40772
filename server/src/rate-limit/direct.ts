import type { Deps } from '../deps';
import { isLimited, type PolicyName, policyOf, rateLimitedError, type Verdict, windowAt } from './policy';
import { addHits } from './store';

/**
 * For the quiet surfaces (sign-in, verification, tokens, registration, invitations): counts one
 * request of each subject under the policy in PostgreSQL, in one statement, so every process of
 * the deployment shares the count exactly. Throws the 429 of the first subject over its limit;
 * otherwise answers the verdicts (the first subject's gives the response headers).
 * Null when rate limiting is off (RATE_LIMIT_ENABLED=false).
 */
export async function countNow(
  deps: Pick<Deps, 'sql' | 'env' | 'clock'>,
  name: PolicyName,
  subjects: readonly string[],
  /** Requests to count for each subject (a tRPC batch makes several calls in one request). */
  hits = 1,
): Promise<Verdict[] | null> {
  if (!deps.env.RATE_LIMIT_ENABLED || subjects.length === 0) return null;
  const policy = policyOf(deps.env, name);
  const now = deps.clock().getTime();
  const { start, end } = windowAt(policy, now);
  const unique = [...new Set(subjects)];
  const totals = await addHits(
    deps.sql,
    unique.map((subject) => ({ key: `${name}:${subject}`, start, end, hits })),
  );
  const verdicts = unique.map((subject) => ({
    policy,
    count: totals.get(`${name}:${subject}`) ?? hits,
    resetAt: end,
  }));
  const over = verdicts.find(isLimited);
  if (over) throw rateLimitedError(over, now);
  return verdicts;
}
