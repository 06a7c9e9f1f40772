import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordAudit } from '../audit/audit.service';
import { bindBrowser, FLOW_TTL_SECONDS, sameBrowser } from './browser-binding';
import { findConnection, oauthRedirectUri } from './connection.service';
import { requireSlack, type SlackConfig, signValue, slackClient, verifyValue } from './slack-config';

/**
 * Linking a Slack user to a Beckon member is Sign in with Slack (OpenID Connect): the member,
 * signed in to the dashboard, signs in to Slack in the same browser, and Slack itself tells which
 * Slack user that is. Nobody can link a Slack user they cannot sign in as, and a link started by
 * one person cannot be finished in another's browser (browser-binding.ts).
 */
const LINK = 'slack link';
const AUTHORIZE_URL = 'https://slack.com/openid/connect/authorize';
const SLACK_ISSUER = 'https://slack.com';

/** The dashboard page an unlinked Slack user is sent to: it starts Sign in with Slack. */
export const linkPageUrl = (deps: Deps) => `${deps.env.APP_URL}/slack/link`;
const outcomePage = (deps: Deps, outcome: string) => `${linkPageUrl(deps)}?${outcome}`;

/**
 * Slack's Sign in with Slack page for the organization's workspace, with a signed state naming
 * the organization, the person, the browser and a nonce, and the cookie binding it to the browser.
 */
export async function startLink(deps: Deps, identity: Identity) {
  const config = requireSlack(deps);
  const connection = await findConnection(deps.sql, identity.orgId);
  if (!connection)
    throw AppError.conflict('slack_not_connected', 'no Slack workspace is connected to this organization');
  const { cookie, browser } = bindBrowser(deps.env, 'link');
  const claim = { org: identity.orgId, user: identity.userId, team: connection.team_id, browser };
  const state = signValue(config, LINK, claim, FLOW_TTL_SECONDS);
  const url = new URL(AUTHORIZE_URL);
  url.search = new URLSearchParams({
    response_type: 'code',
    scope: 'openid',
    client_id: config.clientId,
    redirect_uri: oauthRedirectUri(deps),
    state,
    nonce: browser,
    team: connection.team_id,
  }).toString();
  return { url: url.toString(), cookie };
}

/** Whether a state is an account link's. */
export const isLinkState = (deps: Deps, state: string) =>
  verifyValue(requireSlack(deps), LINK, state) !== null;

type SlackIdentity = { team: string; user: string };

/**
 * The Slack user the ID token names, read from Slack's own answer to our code exchange (over TLS,
 * with our client secret: OpenID Connect Core §3.1.3.7 lets a client take the token endpoint's
 * answer without checking its signature), if it was issued to us, for this request, and is current.
 */
function idTokenSubject(
  config: SlackConfig,
  idToken: string | undefined,
  nonce: string,
): SlackIdentity | null {
  const payload = idToken?.split('.')[1];
  if (!payload) return null;
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
  const team = claims['https://slack.com/team_id'];
  const user = claims['https://slack.com/user_id'];
  const fresh = typeof claims.exp === 'number' && claims.exp > Date.now() / 1000;
  if (claims.iss !== SLACK_ISSUER || claims.aud !== config.clientId || claims.nonce !== nonce || !fresh)
    return null;
  return typeof team === 'string' && typeof user === 'string' ? { team, user } : null;
}

/** The code exchanged for the ID token (openid.connect.token); null when Slack refuses the code. */
async function signedInSlackUser(deps: Deps, config: SlackConfig, code: string, nonce: string) {
  const answer = await slackClient(config)
    .openid.connect.token({
      client_id: config.clientId,
      client_secret: config.clientSecret,
      code,
      redirect_uri: oauthRedirectUri(deps),
    })
    .catch((error: { data?: { error?: string } }) => {
      if (!error.data?.error) throw error;
      return null;
    });
  return answer ? idTokenSubject(config, answer.id_token, nonce) : null;
}

/**
 * Slack's redirect back after Sign in with Slack (GET /webhooks/slack/oauth, state of a link):
 * the state must be ours and unexpired, the browser the one that started it, the person still a
 * member, and the Slack user one of the workspace connected to the organization (still the one
 * the link started for). Then that Slack user answers as that person in the organization, and
 * only there; a person has one Slack user per organization, and the other way round. Answers the
 * dashboard page to send the browser to.
 */
export async function completeLink(
  deps: Deps,
  query: { code?: string; state?: string; error?: string },
  cookies: string | undefined,
): Promise<string> {
  const config = requireSlack(deps);
  const claim = query.state ? verifyValue(config, LINK, query.state) : null;
  const { org, user, team, browser } = claim ?? {};
  if (typeof org !== 'string' || typeof user !== 'string' || typeof team !== 'string')
    return outcomePage(deps, 'error=invalid_state');
  if (!sameBrowser(cookies, 'link', browser)) return outcomePage(deps, 'error=other_browser');
  if (query.error || !query.code)
    return outcomePage(deps, `error=${encodeURIComponent(query.error ?? 'denied')}`);
  const slack = await signedInSlackUser(deps, config, query.code, String(browser));
  if (!slack) return outcomePage(deps, 'error=invalid_code');
  if (slack.team !== team) return outcomePage(deps, 'error=other_workspace');
  const linked = await deps.sql.begin(async (tx) => {
    const connection = await findConnection(tx, org);
    const [member] = await tx`select 1 from memberships where org_id = ${org} and user_id = ${user}`;
    if (!member) return 'error=forbidden';
    if (connection?.team_id !== slack.team) return 'error=other_workspace';
    await tx`
      delete from slack_user_links
       where org_id = ${org} and (slack_user_id = ${slack.user} or user_id = ${user})`;
    await tx`insert into slack_user_links (org_id, slack_user_id, user_id) values (${org}, ${slack.user}, ${user})`;
    await recordAudit(tx, {
      orgId: org,
      action: 'slack.link',
      actor: { type: 'user', id: user },
      data: { slack_user_id: slack.user },
    });
    return 'linked=1';
  });
  return outcomePage(deps, linked);
}
