import { z } from 'zod';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import {
  gateMeta,
  ZCreateGrantInput,
  ZGateGrant,
  ZGateRequest,
  ZGateRequestInput,
  ZGrantId,
} from './gate.contract';
import { grantFromAnswer, listGrants, revokeGrant } from './gate-grants';
import { requestGate } from './gate-request';

const write = permissionProcedure('items.write');

export const gateRouter = router({
  request: write
    .meta(gateMeta.request)
    .input(ZGateRequestInput)
    .output(ZGateRequest)
    .mutation(({ ctx, input }) => requestGate(ctx.deps, ctx.identity, input)),
  grant: write
    .meta(gateMeta.grant)
    .input(ZCreateGrantInput)
    .output(ZGateGrant)
    .mutation(({ ctx, input }) => grantFromAnswer(ctx.deps, ctx.identity, input.item_id)),
  list: permissionProcedure('items.read')
    .meta(gateMeta.list)
    .output(z.array(ZGateGrant))
    .query(({ ctx }) => listGrants(ctx.deps, ctx.identity)),
  revoke: write
    .meta(gateMeta.revoke)
    .input(ZGrantId)
    .output(ZGateGrant)
    .mutation(({ ctx, input }) => revokeGrant(ctx.deps, ctx.identity, input.id)),
});
