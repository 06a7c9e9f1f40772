import { escalationPoliciesProcedures as p } from '@beckon/contracts/schedules/escalation-policies.procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import {
  createPolicy,
  deletePolicy,
  getPolicy,
  listPolicies,
  replacePolicy,
} from './escalation-policies.service';

// As schedules: the organization's admins shape policies, every member reads them.
const read = permissionProcedure('items.read');
const manage = permissionProcedure('channels.manage');

export const escalationPoliciesRouter = router({
  list: implement(read, p.list).query(({ ctx }) => listPolicies(ctx.deps, ctx.identity)),
  create: implement(manage, p.create).mutation(({ ctx, input }) =>
    createPolicy(ctx.deps, ctx.identity, input),
  ),
  get: implement(read, p.get).query(({ ctx, input }) => getPolicy(ctx.deps, ctx.identity, input.id)),
  replace: implement(manage, p.replace).mutation(({ ctx, input }) =>
    replacePolicy(ctx.deps, ctx.identity, input),
  ),
  delete: implement(manage, p.delete).mutation(({ ctx, input }) =>
    deletePolicy(ctx.deps, ctx.identity, input.id),
  ),
});
