import type { Queryable } from '@beckon/db';
import type { Env } from '../../env';
import { AppError } from '../../errors';

/** Plan limit keys of the specification (a null limit is unlimited). */
export type PlanLimitKey =
  | 'max_seats'
  | 'max_teams'
  | 'monthly_notifications'
  | 'webhooks'
  | 'agents'
  | 'slack_workspaces'
  | 'telegram_bots'
  | 'discord_applications'
  | 'teams_bots'
  | 'twilio_accounts';

const COUNTS: Record<Exclude<PlanLimitKey, 'monthly_notifications'>, string> = {
  max_seats: 'select count(*)::int as n from memberships where org_id = $1',
  max_teams: 'select count(*)::int as n from teams where org_id = $1',
  webhooks: 'select count(*)::int as n from webhooks where org_id = $1',
  agents: 'select count(*)::int as n from agents where org_id = $1',
  slack_workspaces: 'select count(*)::int as n from slack_connections where org_id = $1',
  telegram_bots: 'select count(*)::int as n from telegram_connections where org_id = $1',
  discord_applications: 'select count(*)::int as n from discord_connections where org_id = $1',
  teams_bots: 'select count(*)::int as n from teams_connections where org_id = $1',
  twilio_accounts: 'select count(*)::int as n from twilio_connections where org_id = $1',
};

export const upgradeUrl = (env: Env) => `${env.APP_URL}/settings/billing`;

/**
 * The plan gate: before creating a counted resource, compare current usage with the plan's
 * limit and answer 402 at or above it. It locks the organization's subscription row, so
 * concurrent creations in one organization are counted one after the other (call it inside the
 * transaction that creates the resource).
 */
export async function enforcePlanLimit(
  tx: Queryable,
  env: Env,
  orgId: string,
  key: Exclude<PlanLimitKey, 'monthly_notifications'>,
): Promise<void> {
  const [plan] = await tx<{ limit: number | null }[]>`
    select p.${tx(key)} as limit
      from subscriptions s join plans p on p.id = s.plan_id
     where s.org_id = ${orgId}
       for update of s`;
  const limit = plan?.limit ?? null;
  if (limit === null) return;
  const [usage] = await tx.unsafe<{ n: number }[]>(COUNTS[key], [orgId]);
  const current = usage?.n ?? 0;
  if (current >= limit) {
    throw AppError.paymentRequired({ key, limit, current, upgrade_url: upgradeUrl(env) });
  }
}

/** SQLSTATE raised by the items trigger when the monthly notification quota is exhausted. */
const QUOTA_EXHAUSTED = 'BK402';

/**
 * The 402 of the monthly_notifications gate when `error` is the quota trigger's refusal
 * (migration 0004), else null. The trigger's DETAIL carries key, limit and current.
 */
export function quotaError(env: Env, error: unknown): AppError | null {
  const pg = error as { code?: unknown; detail?: unknown };
  if (pg?.code !== QUOTA_EXHAUSTED || typeof pg.detail !== 'string') return null;
  const { key, limit, current } = JSON.parse(pg.detail) as { key: string; limit: number; current: number };
  return AppError.paymentRequired({ key, limit, current, upgrade_url: upgradeUrl(env) });
}
