import type { Queryable } from '@beckon/db';
import type { ChatProvider } from './link-codes';

/**
 * Whether this inbound request of a chat app (a Telegram update, a Discord interaction) is seen
 * for the first time: a replay of one already handled answers false and changes nothing.
 */
export async function firstDelivery(
  sql: Queryable,
  provider: ChatProvider,
  orgId: string,
  externalId: string,
): Promise<boolean> {
  const inserted = await sql`
    insert into chat_inbound_seen (provider, org_id, external_id)
    values (${provider}, ${orgId}, ${externalId}) on conflict do nothing returning 1`;
  return inserted.length > 0;
}

/** Forgets a request that was not handled after all, so the app's redelivery of it runs again. */
export async function forgetDelivery(
  sql: Queryable,
  provider: ChatProvider,
  orgId: string,
  externalId: string,
) {
  await sql`delete from chat_inbound_seen
    where provider = ${provider} and org_id = ${orgId} and external_id = ${externalId}`;
}
