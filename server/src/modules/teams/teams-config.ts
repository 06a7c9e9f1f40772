import type { Env } from '../../env';
import { AppError } from '../../errors';
import { deriveKey } from '../chat/secret-box';
import { createSigningKeys, type SigningKeys } from './signing-keys';

/** Bot Framework's OpenID metadata: its `jwks_uri` names the keys activities are signed with. */
const OPENID_URL = 'https://login.botframework.com/v1/.well-known/openidconfiguration';
/** Microsoft Entra, where a bot trades its app id and secret for a Bot Connector token. */
const LOGIN_URL = 'https://login.microsoftonline.com';

export type TeamsConfig = {
  /** Encrypts the bots' client secrets (AES-256-GCM). */
  tokenKey: Buffer;
  loginUrl: string;
  /** Bot Framework's signing keys, read from its OpenID metadata and kept for a day. */
  keys: SigningKeys;
  /** Bot Connector tokens of the organizations' bots, until shortly before they expire. */
  tokens: Map<string, { token: string; until: number }>;
};

/** Teams' configuration when TEAMS_TOKEN_KEY is set (else null: Teams answers 503). */
export function createTeamsConfig(env: Env): TeamsConfig | null {
  const secret = env.TEAMS_TOKEN_KEY;
  if (!secret) return null;
  return {
    tokenKey: deriveKey(secret, 'beckon teams bot secret'),
    loginUrl: (env.TEAMS_LOGIN_URL ?? LOGIN_URL).replace(/\/+$/, ''),
    keys: createSigningKeys(env.TEAMS_OPENID_URL ?? OPENID_URL),
    tokens: new Map(),
  };
}

export function requireTeams(deps: { teams: TeamsConfig | null }): TeamsConfig {
  if (!deps.teams) throw AppError.unavailable('teams_not_configured', 'teams is not configured');
  return deps.teams;
}

/** The messaging endpoint of one organization's bot (its Azure Bot registration's setting). */
export const messagingEndpoint = (env: Env, orgId: string) => `${env.RESOURCE_URL}/webhooks/teams/${orgId}`;
