import { gateProcedures } from '@beckon/contracts/gate/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { grantFromAnswer, listGrants, revokeGrant } from './gate-grants';
import { requestGate } from './gate-request';

const write = permissionProcedure('items.write');

export const gateRouter = router({
  request: implement(write, gateProcedures.request).mutation(({ ctx, input }) =>
    requestGate(ctx.deps, ctx.identity, input),
  ),
  grant: implement(write, gateProcedures.grant).mutation(({ ctx, input }) =>
    grantFromAnswer(ctx.deps, ctx.identity, input.item_id),
  ),
  list: implement(permissionProcedure('items.read'), gateProcedures.list).query(({ ctx }) =>
    listGrants(ctx.deps, ctx.identity),
  ),
  revoke: implement(write, gateProcedures.revoke).mutation(({ ctx, input }) =>
    revokeGrant(ctx.deps, ctx.identity, input.id),
  ),
});
