import { receiptProcedures } from '@beckon/contracts/receipts/procedures';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { jwksUrl, rotateReceiptKey } from './receipt-keys';

/** GET /api/items/:id/receipt: the receipt of the item's decision; 404 while there is none. */
async function itemReceipt(deps: Deps, identity: Identity, id: string) {
  const { sql } = deps;
  const [row] = await sql<{ receipt: string | null }[]>`
    select receipt from items
     where id = ${id} and org_id = ${identity.orgId}
       ${identity.itemsOfAgent ? sql`and agent_id = ${identity.itemsOfAgent}` : sql``}`;
  if (!row) throw AppError.notFound();
  if (!row.receipt) throw AppError.of('no_receipt', 'no receipt: the item is not decided');
  return { item_id: id, receipt: row.receipt, jwks_url: jwksUrl(deps.env, identity.orgId) };
}

export const receiptsRouter = router({
  get: implement(permissionProcedure('items.read'), receiptProcedures.get).query(({ ctx, input }) =>
    itemReceipt(ctx.deps, ctx.identity, input.id),
  ),
  rotateKey: implement(permissionProcedure('org.manage'), receiptProcedures.rotateKey).mutation(
    async ({ ctx }) => ({ kid: await rotateReceiptKey(ctx.deps.sql, ctx.deps.env, ctx.identity.orgId) }),
  ),
});
