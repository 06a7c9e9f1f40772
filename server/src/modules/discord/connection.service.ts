import type { ConnectDiscordInput, DiscordConnectionView } from '@beckon/contracts/discord/discord.contract';
import type { Queryable } from '@beckon/db';
import type { Identity } from '../../auth/identity';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { enforcePlanLimit } from '../billing/plan-gate';
import { seal, unseal } from '../chat/secret-box';
import { type DiscordConfig, interactionsUrl, requireDiscord } from './discord-config';
import { DiscordApiError, discordClient } from './discord-rest';

/** The slash command a person links their Discord account with (a code made in the dashboard). */
export const LINK_COMMAND = 'beckon-link';

type ConnectionRow = {
  org_id: string;
  application_id: string;
  application_name: string;
  public_key: string;
  token_ciphertext: string;
  created_at: Date;
};

export async function findConnection(sql: Queryable, orgId: string): Promise<ConnectionRow | null> {
  const [row] = await sql<ConnectionRow[]>`
    select org_id, application_id, application_name, public_key, token_ciphertext, created_at
      from discord_connections where org_id = ${orgId}`;
  return row ?? null;
}

/** The organization's application, ready to call Discord; null when none is connected. */
export async function orgApp(deps: Deps, config: DiscordConfig, orgId: string) {
  const row = await findConnection(deps.sql, orgId);
  if (!row) return null;
  return { connection: row, client: discordClient(config, unseal(config.tokenKey, row.token_ciphertext)) };
}

export async function connectedApp(deps: Deps, identity: Identity) {
  const app = await orgApp(deps, requireDiscord(deps), identity.orgId);
  if (!app) throw AppError.conflict('discord_not_connected', 'no Discord application is connected');
  return app;
}

const connectionView = (deps: Deps, row: ConnectionRow): DiscordConnectionView => ({
  application_id: row.application_id,
  application_name: row.application_name,
  interactions_url: interactionsUrl(deps.env, row.org_id),
  connected_at: row.created_at.toISOString(),
});

export async function discordStatus(deps: Deps, identity: Identity) {
  requireDiscord(deps);
  const row = await findConnection(deps.sql, identity.orgId);
  return { connection: row ? connectionView(deps, row) : null };
}

type Application = { id: string; name: string; verify_key: string };

/**
 * Connects the organization's Discord application by its bot token: Discord names the
 * application and its public key (GET /applications/@me; a token it refuses is a 400), the plan
 * must allow one (a reconnection is fine), and Beckon registers the /beckon-link command people
 * link their account with. The Interactions Endpoint URL is then set in the Developer Portal
 * (Discord checks it with a signed PING, answered by discord-http.ts).
 */
export async function connect(deps: Deps, identity: Identity, input: ConnectDiscordInput) {
  const config = requireDiscord(deps);
  const orgId = identity.orgId;
  const gate = async (tx: Queryable) => {
    if (!(await findConnection(tx, orgId)))
      await enforcePlanLimit(tx, deps.env, orgId, 'discord_applications');
  };
  await deps.sql.begin(gate);
  const client = discordClient(config, input.bot_token);
  const app = await client.get<Application>('/applications/@me').catch((error: unknown) => {
    if (error instanceof DiscordApiError && error.status === 401)
      throw AppError.invalid({ bot_token: 'Discord does not accept this token' });
    throw error;
  });
  await client.put(`/applications/${app.id}/commands`, [
    {
      name: LINK_COMMAND,
      type: 1,
      description: 'Link your Discord account to Beckon',
      options: [{ type: 3, name: 'code', description: 'The code from Beckon', required: true }],
    },
  ]);
  const token = seal(config.tokenKey, input.bot_token);
  await deps.sql.begin(async (tx) => {
    await gate(tx);
    const existing = await findConnection(tx, orgId);
    // Another application: its routes, links and messages belong to the old one.
    if (existing && existing.application_id !== app.id)
      await tx`delete from discord_connections where org_id = ${orgId}`;
    await tx`
      insert into discord_connections (org_id, application_id, application_name, public_key, token_ciphertext, installed_by)
      values (${orgId}, ${app.id}, ${app.name}, ${app.verify_key}, ${token}, ${identity.userId})
      on conflict (org_id) do update set application_name = excluded.application_name,
        public_key = excluded.public_key, token_ciphertext = excluded.token_ciphertext,
        installed_by = excluded.installed_by, updated_at = now()`;
    await recordOrgChange(tx, identity, 'discord.connect', { application_id: app.id, name: app.name });
  });
  // Every process knows the organization has Discord now, before the answer says so (OrgFacts).
  await fenceCaches(deps);
  return discordStatus(deps, identity);
}

/** Forgets the application: its token, routes, links and message records. */
export async function disconnect(deps: Deps, identity: Identity) {
  requireDiscord(deps);
  await deps.sql.begin(async (tx) => {
    const [gone] = await tx<{ application_id: string }[]>`
      delete from discord_connections where org_id = ${identity.orgId} returning application_id`;
    if (gone)
      await recordOrgChange(tx, identity, 'discord.disconnect', { application_id: gone.application_id });
  });
  return { connection: null };
}
