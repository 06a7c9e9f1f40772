import type { ConnectTeamsInput, TeamsConnectionView } from '@beckon/contracts/teams/teams.contract';
import type { Queryable } from '@beckon/db';
import type { Identity } from '../../auth/identity';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { enforcePlanLimit } from '../billing/plan-gate';
import { seal, unseal } from '../chat/secret-box';
import { botToken, connectorClient, TeamsApiError } from './connector';
import { messagingEndpoint, requireTeams, type TeamsConfig } from './teams-config';

type ConnectionRow = {
  org_id: string;
  app_id: string;
  tenant_id: string | null;
  secret_ciphertext: string;
  created_at: Date;
};

export async function findConnection(sql: Queryable, orgId: string): Promise<ConnectionRow | null> {
  const [row] = await sql<ConnectionRow[]>`
    select org_id, app_id, tenant_id, secret_ciphertext, created_at
      from teams_connections where org_id = ${orgId}`;
  return row ?? null;
}

/** The organization's bot, ready to call the Bot Connector; null when none is connected. */
export async function orgBot(deps: Deps, config: TeamsConfig, orgId: string) {
  const row = await findConnection(deps.sql, orgId);
  if (!row) return null;
  const credentials = {
    appId: row.app_id,
    tenantId: row.tenant_id,
    password: unseal(config.tokenKey, row.secret_ciphertext),
  };
  return { connection: row, client: connectorClient(config, credentials) };
}

const connectionView = (deps: Deps, row: ConnectionRow): TeamsConnectionView => ({
  app_id: row.app_id,
  tenant_id: row.tenant_id,
  messaging_endpoint: messagingEndpoint(deps.env, row.org_id),
  connected_at: row.created_at.toISOString(),
});

export async function teamsStatus(deps: Deps, identity: Identity) {
  requireTeams(deps);
  const row = await findConnection(deps.sql, identity.orgId);
  return { connection: row ? connectionView(deps, row) : null };
}

/**
 * Connects the organization's bot by its Microsoft App ID and a client secret: Microsoft Entra
 * must grant it a Bot Connector token (a pair it refuses is a 400), and the plan must allow a bot
 * (a reconnection is fine). The messaging endpoint is then set in the Azure Bot registration.
 * Another app id replacing the connected one takes the place of its conversations, routes, links
 * and cards.
 */
export async function connect(deps: Deps, identity: Identity, input: ConnectTeamsInput) {
  const config = requireTeams(deps);
  const orgId = identity.orgId;
  const gate = async (tx: Queryable) => {
    if (!(await findConnection(tx, orgId))) await enforcePlanLimit(tx, deps.env, orgId, 'teams_bots');
  };
  await deps.sql.begin(gate);
  const credentials = {
    appId: input.app_id,
    tenantId: input.tenant_id ?? null,
    password: input.app_password,
  };
  await botToken(config, credentials).catch((error: unknown) => {
    if (error instanceof TeamsApiError && error.status !== null && error.status >= 400 && error.status < 500)
      throw AppError.invalid({ app_password: 'Microsoft Entra does not accept this app id and secret' });
    throw error;
  });
  const secret = seal(config.tokenKey, input.app_password);
  await deps.sql.begin(async (tx) => {
    await gate(tx);
    const existing = await findConnection(tx, orgId);
    if (existing && existing.app_id !== input.app_id)
      await tx`delete from teams_connections where org_id = ${orgId}`;
    await tx`
      insert into teams_connections (org_id, app_id, tenant_id, secret_ciphertext, installed_by)
      values (${orgId}, ${input.app_id}, ${credentials.tenantId}, ${secret}, ${identity.userId})
      on conflict (org_id) do update set tenant_id = excluded.tenant_id,
        secret_ciphertext = excluded.secret_ciphertext, installed_by = excluded.installed_by, updated_at = now()`;
    await recordOrgChange(tx, identity, 'teams.connect', { app_id: input.app_id });
  });
  // Every process knows the organization has Teams now, before the answer says so (OrgFacts).
  await fenceCaches(deps);
  return teamsStatus(deps, identity);
}

/** Forgets the bot: its secret, conversations, routes, links and card records. */
export async function disconnect(deps: Deps, identity: Identity) {
  requireTeams(deps);
  await deps.sql.begin(async (tx) => {
    const [gone] = await tx<{ app_id: string }[]>`
      delete from teams_connections where org_id = ${identity.orgId} returning app_id`;
    if (gone) await recordOrgChange(tx, identity, 'teams.disconnect', { app_id: gone.app_id });
  });
  return { connection: null };
}
