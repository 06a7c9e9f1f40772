import type { InboundWebhookView } from '@beckon/contracts/inbound/inbound.contract';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import { generateOrgToken, hashToken } from '../../auth/tokens';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';

type Row = Omit<InboundWebhookView, 'created_at'> & { created_at: Date };
const view = (row: Row): InboundWebhookView => ({ ...row, created_at: row.created_at.toISOString() });

export const inboundUrl = (deps: Deps, token: string) =>
  `${deps.env.RESOURCE_URL}/api/webhooks/inbound/${token}`;

export async function listInboundWebhooks(deps: Deps, identity: Identity) {
  const rows = await deps.sql<Row[]>`
    select id, name, created_by, created_at from inbound_webhooks
     where org_id = ${identity.orgId} order by created_at, id`;
  return rows.map(view);
}

export async function createInboundWebhook(deps: Deps, identity: Identity, name: string) {
  const token = generateOrgToken(identity.orgId);
  const row = await deps.sql.begin(async (tx) => {
    const [created] = await tx<Row[]>`
      insert into inbound_webhooks (id, org_id, name, token_hash, created_by)
      values (${uuidv7()}, ${identity.orgId}, ${name}, ${hashToken(token)}, ${identity.userId})
      returning id, name, created_by, created_at`;
    const inbound = created as Row;
    await recordOrgChange(tx, identity, 'inbound_webhook.create', { inbound_webhook_id: inbound.id, name });
    return inbound;
  });
  return { ...view(row), token, url: inboundUrl(deps, token) };
}

export async function deleteInboundWebhook(deps: Deps, identity: Identity, id: string) {
  return deps.sql.begin(async (tx) => {
    const [row] = await tx<Row[]>`
      delete from inbound_webhooks where id = ${id} and org_id = ${identity.orgId}
      returning id, name, created_by, created_at`;
    if (!row) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'inbound_webhook.delete', { inbound_webhook_id: id });
    return view(row);
  });
}
