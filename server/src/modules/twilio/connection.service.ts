import type {
  PutTwilioConnectionInput,
  TwilioConnectionView,
} from '@beckon/contracts/twilio/twilio.contract';
import type { Queryable } from '@beckon/db';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { enforcePlanLimit } from '../billing/plan-gate';
import { decryptToken, encryptToken } from '../slack/slack-config';
import { requireTwilio, type TwilioConfig, twilioClient } from './twilio-config';

/** The permission that manages the organization's Twilio account (as Slack's workspace). */
export const TWILIO_PERMISSION = 'org.manage';

export type ConnectionRow = {
  org_id: string;
  account_sid: string;
  auth_token_ciphertext: string;
  sms_from: string | null;
  whatsapp_from: string | null;
  created_at: Date;
};

/** Where Twilio posts the messages people send to the organization's numbers (twilio-http.ts). */
export const inboundUrl = (deps: Deps, orgId: string) =>
  `${deps.env.RESOURCE_URL}/webhooks/twilio/${orgId}/messages`;

export async function findConnection(sql: Queryable, orgId: string): Promise<ConnectionRow | null> {
  const [row] = await sql<ConnectionRow[]>`
    select org_id, account_sid, auth_token_ciphertext, sms_from, whatsapp_from, created_at
      from twilio_connections where org_id = ${orgId}`;
  return row ?? null;
}

/** The organization's account, ready to call Twilio; null when none is connected. */
export async function orgTwilio(deps: Deps, config: TwilioConfig, orgId: string) {
  const connection = await findConnection(deps.sql, orgId);
  if (!connection) return null;
  const authToken = decryptToken(config, connection.auth_token_ciphertext);
  return { connection, authToken, client: twilioClient(config, connection.account_sid, authToken) };
}

export type OrgTwilio = NonNullable<Awaited<ReturnType<typeof orgTwilio>>>;

const connectionView = (deps: Deps, row: ConnectionRow): TwilioConnectionView => ({
  account_sid: row.account_sid,
  sms_from: row.sms_from,
  whatsapp_from: row.whatsapp_from,
  inbound_url: inboundUrl(deps, row.org_id),
  connected_at: row.created_at.toISOString(),
});

export async function twilioStatus(deps: Deps, identity: Identity) {
  requireTwilio(deps);
  const row = await findConnection(deps.sql, identity.orgId);
  return { connection: row ? connectionView(deps, row) : null };
}

/** Whether Twilio takes these credentials: the account itself is read with them. */
async function credentialsWork(config: TwilioConfig, input: PutTwilioConnectionInput): Promise<boolean> {
  const client = twilioClient(config, input.account_sid, input.auth_token);
  try {
    await client.api.v2010.accounts(input.account_sid).fetch();
    return true;
  } catch (error) {
    // Twilio's refusal of the credentials; anything else (unreachable, its 5xx) is a failure of ours.
    if ((error as { status?: number }).status === 401) return false;
    throw error;
  }
}

/**
 * Connects the organization's Twilio account (or replaces its credentials and numbers), once
 * Twilio accepted the credentials. Another account than before: the people's numbers stay (they
 * are theirs), the message records go (their replies came through the old numbers).
 */
export async function connect(deps: Deps, identity: Identity, input: PutTwilioConnectionInput) {
  const config = requireTwilio(deps);
  if (!(await credentialsWork(config, input)))
    throw AppError.invalid({ auth_token: 'Twilio refused this account SID and auth token' });
  const token = encryptToken(config, input.auth_token);
  const row = await deps.sql.begin(async (tx) => {
    const existing = await findConnection(tx, identity.orgId);
    if (!existing) await enforcePlanLimit(tx, deps.env, identity.orgId, 'twilio_accounts');
    if (existing && existing.account_sid !== input.account_sid)
      await tx`delete from twilio_messages where org_id = ${identity.orgId}`;
    const [saved] = await tx<ConnectionRow[]>`
      insert into twilio_connections (org_id, account_sid, auth_token_ciphertext, sms_from, whatsapp_from, connected_by)
      values (${identity.orgId}, ${input.account_sid}, ${token}, ${input.sms_from}, ${input.whatsapp_from}, ${identity.userId})
      on conflict (org_id) do update set account_sid = excluded.account_sid,
        auth_token_ciphertext = excluded.auth_token_ciphertext, sms_from = excluded.sms_from,
        whatsapp_from = excluded.whatsapp_from, connected_by = excluded.connected_by, updated_at = now()
      returning org_id, account_sid, auth_token_ciphertext, sms_from, whatsapp_from, created_at`;
    await recordOrgChange(tx, identity, 'twilio.connect', {
      account_sid: input.account_sid,
      sms_from: input.sms_from,
      whatsapp_from: input.whatsapp_from,
    });
    return saved as ConnectionRow;
  });
  return { connection: connectionView(deps, row) };
}

/** Forgets the account: its token, and with it the people's numbers and the message records. */
export async function disconnect(deps: Deps, identity: Identity) {
  requireTwilio(deps);
  await deps.sql.begin(async (tx) => {
    const [gone] = await tx<{ account_sid: string }[]>`
      delete from twilio_connections where org_id = ${identity.orgId} returning account_sid`;
    if (gone) await recordOrgChange(tx, identity, 'twilio.disconnect', { account_sid: gone.account_sid });
  });
  return { connection: null };
}
