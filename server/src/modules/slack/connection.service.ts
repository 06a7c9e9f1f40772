import { can } from '@beckon/contracts/permissions';
import type { SlackConnectionView } from '@beckon/contracts/slack/slack.contract';
import type { Queryable } from '@beckon/db';
import type { Identity } from '../../auth/identity';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordAudit, recordOrgChange } from '../audit/audit.service';
import { enforcePlanLimit } from '../billing/plan-gate';
import { bindBrowser, FLOW_TTL_SECONDS, sameBrowser } from './browser-binding';
import {
  decryptToken,
  encryptToken,
  requireSlack,
  type SlackConfig,
  signValue,
  slackClient,
  verifyValue,
} from './slack-config';

/**
 * What the bot may do: post and update messages (and open modals), read the channels it is routed
 * to, and write to people directly (their DM with the app) after checking who they are.
 */
export const BOT_SCOPES = ['chat:write', 'channels:read', 'groups:read', 'im:write', 'users:read'];
const AUTHORIZE_URL = 'https://slack.com/oauth/v2/authorize';
const INSTALL = 'slack install';
/** The permission that manages the organization's Slack workspace. */
export const SLACK_PERMISSION = 'org.manage';

export const oauthRedirectUri = (deps: Deps) => `${deps.env.RESOURCE_URL}/webhooks/slack/oauth`;
const settingsPage = (deps: Deps, outcome: string) => `${deps.env.APP_URL}/settings/slack?${outcome}`;

type ConnectionRow = {
  org_id: string;
  team_id: string;
  team_name: string;
  bot_user_id: string | null;
  token_ciphertext: string;
  created_at: Date;
};

export async function findConnection(sql: Queryable, orgId: string): Promise<ConnectionRow | null> {
  const [row] = await sql<ConnectionRow[]>`
    select org_id, team_id, team_name, bot_user_id, token_ciphertext, created_at
      from slack_connections where org_id = ${orgId}`;
  return row ?? null;
}

/** The organization's bot, ready to call Slack; null when no workspace is connected. */
export async function orgBot(deps: Deps, config: SlackConfig, orgId: string) {
  const row = await findConnection(deps.sql, orgId);
  if (!row) return null;
  return { connection: row, client: slackClient(config, decryptToken(config, row.token_ciphertext)) };
}

const connectionView = (row: ConnectionRow): SlackConnectionView => ({
  team_id: row.team_id,
  team_name: row.team_name,
  bot_user_id: row.bot_user_id,
  connected_at: row.created_at.toISOString(),
});

export async function slackStatus(deps: Deps, identity: Identity) {
  requireSlack(deps);
  const row = await findConnection(deps.sql, identity.orgId);
  return { connection: row ? connectionView(row) : null };
}

/**
 * The authorize page of Slack, with a signed state naming the organization, the person and the
 * browser (browser-binding.ts), and the cookie that binds the install to that browser.
 */
export async function startInstall(deps: Deps, identity: Identity) {
  const config = requireSlack(deps);
  await deps.sql.begin(async (tx) => {
    // A plan without Slack is refused here already (a reinstall of a connected one is fine).
    if (!(await findConnection(tx, identity.orgId)))
      await enforcePlanLimit(tx, deps.env, identity.orgId, 'slack_workspaces');
  });
  const { cookie, browser } = bindBrowser(deps.env, 'install');
  const state = signValue(
    config,
    INSTALL,
    { org: identity.orgId, user: identity.userId, browser },
    FLOW_TTL_SECONDS,
  );
  const url = new URL(AUTHORIZE_URL);
  url.search = new URLSearchParams({
    client_id: config.clientId,
    scope: BOT_SCOPES.join(','),
    redirect_uri: oauthRedirectUri(deps),
    state,
  }).toString();
  return { url: url.toString(), cookie };
}

/**
 * Slack's redirect after the install (GET /webhooks/slack/oauth): the state must be ours and
 * unexpired, the browser the one that started it (its cookie), and the person who started it
 * must still manage the organization; the code is exchanged for the bot token (oauth.v2.access),
 * stored encrypted. Answers the dashboard page to send the browser to.
 */
export async function completeInstall(
  deps: Deps,
  query: { code?: string; state?: string; error?: string },
  cookies: string | undefined,
): Promise<string> {
  const config = requireSlack(deps);
  const state = query.state ? verifyValue(config, INSTALL, query.state) : null;
  if (!state || typeof state.org !== 'string' || typeof state.user !== 'string') {
    return settingsPage(deps, 'error=invalid_state');
  }
  // Another browser than the one that started it (an authorize link someone was sent): refused
  // before the code is used, so the workspace is never connected to the sender's organization.
  if (!sameBrowser(cookies, 'install', state.browser)) return settingsPage(deps, 'error=other_browser');
  if (query.error || !query.code)
    return settingsPage(deps, `error=${encodeURIComponent(query.error ?? 'denied')}`);
  const orgId = state.org;
  const userId = state.user;
  if (!(await stillManages(deps.sql, orgId, userId))) return settingsPage(deps, 'error=forbidden');
  const access = await slackClient(config)
    .oauth.v2.access({
      client_id: config.clientId,
      client_secret: config.clientSecret,
      code: query.code,
      redirect_uri: oauthRedirectUri(deps),
    })
    .catch((error: { data?: { error?: string } }) => {
      // Slack's refusal (an expired or reused code) goes back to the page; anything else is ours.
      if (!error.data?.error) throw error;
      return { access_token: undefined, team: undefined, bot_user_id: undefined, error: error.data.error };
    });
  if (!access.access_token || !access.team?.id) {
    return settingsPage(
      deps,
      `error=${encodeURIComponent(('error' in access && access.error) || 'no_token')}`,
    );
  }
  const token = encryptToken(config, access.access_token);
  const team = { id: access.team.id, name: access.team.name ?? access.team.id };
  const stored = await deps.sql.begin(async (tx) => {
    const existing = await findConnection(tx, orgId);
    // The plan changed since the install started: back to the page, which says so.
    if (!existing && !(await withinPlan(tx, deps, orgId))) return false;
    // Another workspace: the old one's routes, links and messages name ids that mean nothing now.
    if (existing && existing.team_id !== team.id)
      await tx`delete from slack_connections where org_id = ${orgId}`;
    await tx`
      insert into slack_connections (org_id, team_id, team_name, bot_user_id, token_ciphertext, installed_by)
      values (${orgId}, ${team.id}, ${team.name}, ${access.bot_user_id ?? null}, ${token}, ${userId})
      on conflict (org_id) do update set team_name = excluded.team_name, bot_user_id = excluded.bot_user_id,
        token_ciphertext = excluded.token_ciphertext, installed_by = excluded.installed_by, updated_at = now()`;
    await recordAudit(tx, {
      orgId,
      action: 'slack.connect',
      actor: { type: 'user', id: userId },
      data: { team_id: team.id, team_name: team.name },
    });
    return true;
  });
  // Every process knows the organization has Slack now, before the page says so (OrgFacts).
  if (stored) await fenceCaches(deps);
  return settingsPage(deps, stored ? 'connected=1' : 'error=plan_limit');
}

async function withinPlan(tx: Queryable, deps: Deps, orgId: string): Promise<boolean> {
  try {
    await enforcePlanLimit(tx, deps.env, orgId, 'slack_workspaces');
    return true;
  } catch (error) {
    if (error instanceof AppError && error.status === 402) return false;
    throw error;
  }
}

async function stillManages(sql: Queryable, orgId: string, userId: string): Promise<boolean> {
  const [row] = await sql<{ permissions: string[] }[]>`
    select r.permissions from memberships m join roles r on r.id = m.role_id
     where m.org_id = ${orgId} and m.user_id = ${userId}`;
  return row ? can(row.permissions, SLACK_PERMISSION) : false;
}

/**
 * Forgets the workspace: the token, and with it the routes, links and message records. The token
 * is revoked at Slack first when Slack answers (a token Slack no longer knows is gone anyway).
 */
export async function disconnect(deps: Deps, identity: Identity) {
  const config = requireSlack(deps);
  const bot = await orgBot(deps, config, identity.orgId);
  await bot?.client.auth
    .revoke()
    .catch((error: unknown) => deps.log.warn({ err: error }, 'slack token revocation failed'));
  await deps.sql.begin(async (tx) => {
    const [gone] = await tx<{ team_id: string }[]>`
      delete from slack_connections where org_id = ${identity.orgId} returning team_id`;
    if (gone) await recordOrgChange(tx, identity, 'slack.disconnect', { team_id: gone.team_id });
  });
  return { connection: null };
}
