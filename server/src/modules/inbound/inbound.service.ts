import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import { generateToken, hashToken } from '../../auth/tokens';
import type { Deps } from '../../deps';
import { AppError, fieldsFromZod } from '../../errors';
import { idempotent } from '../../trpc/idempotency';
import { recordOrgChange } from '../audit/audit.service';
import { createItem } from '../items/create-item';
import { ZCreateItemInput } from '../items/item.contract';
import type { InboundWebhookView } from './inbound.contract';

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
  const token = generateToken();
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

/**
 * An item from an external system: the token in the URL is the credential (stored hashed; an
 * unknown one is a 404 whatever the body), then the body is the item (400 when invalid). It is created as the inbound webhook (actor type agent), through
 * the same service as every creation, monthly quota and Idempotency-Key included.
 */
export async function deliverInbound(
  deps: Deps,
  token: string,
  body: unknown,
  request: { idempotencyKey: string | null; responseHeaders: Record<string, string> },
) {
  const [hook] = await deps.sql<{ id: string; org_id: string; created_by: string | null }[]>`
    select id, org_id, created_by from inbound_webhooks where token_hash = ${hashToken(token)}`;
  if (!hook) throw AppError.notFound();
  const parsed = ZCreateItemInput.safeParse(body ?? {});
  if (!parsed.success) throw AppError.invalid(fieldsFromZod(parsed.error.issues));
  const input = parsed.data;
  const identity: Identity = {
    userId: hook.created_by ?? hook.id,
    orgId: hook.org_id,
    agentId: null,
    source: 'api_key',
    clientId: null,
    credentialId: hook.id,
    role: 'inbound webhook',
    permissions: ['items.write'],
  };
  const ctx = { deps, token: null, identity, ...request };
  return idempotent(ctx, `inbound.deliver:${hook.id}`, input, 201, (sql) =>
    createItem({ ...deps, sql }, identity, input, { type: 'agent', id: hook.id }),
  );
}
