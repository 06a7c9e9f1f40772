import type {
  CreatedWebhookView,
  CreateWebhookInput,
  DeliveryView,
  ListDeliveriesInput,
  WebhookView,
} from '@beckon/contracts/webhooks/webhooks.contract';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import { generateToken } from '../../auth/tokens';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';
import { enforcePlanLimit } from '../billing/plan-gate';
import { decodeIdCursor, encodeIdCursor } from '../paging';

type WebhookRow = Omit<WebhookView, 'created_at'> & { created_at: Date };
const webhookView = (row: WebhookRow): WebhookView => ({
  id: row.id,
  name: row.name,
  url: row.url,
  events: row.events,
  active: row.active,
  disabled_reason: row.disabled_reason,
  created_at: row.created_at.toISOString(),
});
const COLUMNS = 'id, name, url, events, active, disabled_reason, created_at';

export async function listWebhooks(deps: Deps, identity: Identity): Promise<WebhookView[]> {
  const rows = await deps.sql.unsafe<WebhookRow[]>(
    `select ${COLUMNS} from webhooks where org_id = $1 order by created_at, id`,
    [identity.orgId],
  );
  return rows.map(webhookView);
}

/**
 * Creates a webhook within the plan's `webhooks` limit (402 at the limit). Without a secret one
 * is generated and returned this once; it stays readable in the database, as every delivery is
 * signed with it.
 */
export async function createWebhook(
  deps: Deps,
  identity: Identity,
  input: CreateWebhookInput,
): Promise<CreatedWebhookView> {
  const secret = input.secret ?? generateToken();
  const row = await deps.sql.begin(async (tx) => {
    await enforcePlanLimit(tx, deps.env, identity.orgId, 'webhooks');
    const [created] = await tx<WebhookRow[]>`
      insert into webhooks (id, org_id, name, url, events, secret)
      values (${uuidv7()}, ${identity.orgId}, ${input.name}, ${input.url}, ${input.events}, ${secret})
      returning ${tx.unsafe(COLUMNS)}`;
    const webhook = created as WebhookRow;
    await recordOrgChange(tx, identity, 'webhook.create', {
      webhook_id: webhook.id,
      name: webhook.name,
      url: webhook.url,
      events: webhook.events,
    });
    return webhook;
  });
  // Every resource process then knows the organization has webhooks: any item change after this
  // answer reaches the new one (see caches/org-facts.ts).
  await fenceCaches(deps);
  return { ...webhookView(row), ...(input.secret ? {} : { secret }) };
}

export async function deleteWebhook(deps: Deps, identity: Identity, id: string): Promise<WebhookView> {
  const row = await deps.sql.begin(async (tx) => {
    const [deleted] = await tx<WebhookRow[]>`
      delete from webhooks where id = ${id} and org_id = ${identity.orgId} returning ${tx.unsafe(COLUMNS)}`;
    if (!deleted) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'webhook.delete', { webhook_id: id, name: deleted.name });
    return deleted;
  });
  return webhookView(row);
}

type DeliveryRow = Omit<DeliveryView, 'created_at'> & { created_at: Date };

/** Delivery attempts of the organization's webhooks and callbacks, newest first. */
export async function listDeliveries(deps: Deps, identity: Identity, input: ListDeliveriesInput) {
  const { sql } = deps;
  const rows = await sql<DeliveryRow[]>`
    select id, delivery_id, kind, webhook_id, item_id, event, url, attempt, status_code, error, duration_ms, created_at
      from delivery_attempts
     where org_id = ${identity.orgId}
       ${input.webhook_id ? sql`and webhook_id = ${input.webhook_id}` : sql``}
       ${input.item_id ? sql`and item_id = ${input.item_id}` : sql``}
       ${input.cursor ? sql`and id < ${decodeIdCursor(input.cursor)}` : sql``}
     order by id desc
     limit ${input.limit + 1}`;
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    deliveries: page.map((row) => ({ ...row, created_at: row.created_at.toISOString() })),
    next_cursor: rows.length > input.limit && last ? encodeIdCursor(last.id) : null,
  };
}
