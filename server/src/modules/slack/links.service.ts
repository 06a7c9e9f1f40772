import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { findConnection } from './connection.service';
import { requireSlack, type SlackConfig, signValue, verifyValue } from './slack-config';

const LINK = 'slack link';
/** A link sent to a Slack user is good for a day. */
const LINK_TTL_SECONDS = 24 * 3600;

type LinkClaim = { org: string; team: string; slack_user: string };

/** The dashboard page that links the Slack user of the token to whoever signs in there. */
export function linkPageUrl(deps: Deps, config: SlackConfig, claim: LinkClaim): string {
  const token = signValue(config, LINK, claim, LINK_TTL_SECONDS);
  return `${deps.env.APP_URL}/slack/link?token=${encodeURIComponent(token)}`;
}

/**
 * Links the Slack user named by a signed token to the signed-in person, in the organization the
 * token was made for (and whose workspace still is the token's): from then on their clicks in
 * Slack answer as that person. A person has one Slack user per organization, and the other way.
 */
export async function linkSlackUser(deps: Deps, identity: Identity, token: string) {
  const config = requireSlack(deps.env);
  const claim = verifyValue(config, LINK, token) as Partial<LinkClaim> | null;
  const invalid = () => AppError.invalid({ token: 'invalid or expired link' });
  if (!claim || typeof claim.slack_user !== 'string' || claim.org !== identity.orgId) throw invalid();
  const slackUser = claim.slack_user;
  await deps.sql.begin(async (tx) => {
    const connection = await findConnection(tx, identity.orgId);
    if (!connection || connection.team_id !== claim.team) throw invalid();
    await tx`
      delete from slack_user_links
       where org_id = ${identity.orgId} and (slack_user_id = ${slackUser} or user_id = ${identity.userId})`;
    await tx`
      insert into slack_user_links (org_id, slack_user_id, user_id)
      values (${identity.orgId}, ${slackUser}, ${identity.userId})`;
    await recordOrgChange(tx, identity, 'slack.link', { slack_user_id: slackUser });
  });
  return { team_id: claim.team as string, slack_user_id: slackUser, user_id: identity.userId };
}
