import { retentionProcedures } from '@beckon/contracts/retention/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure, sessionPermissionProcedure, sessionProcedure } from '../../trpc/procedures';
import { eraseMe, eraseMember } from './erase-person';
import { requestOrgDeletion } from './org-deletion';
import { exportMe, exportMember } from './person-export';
import { getRetention, putRetention } from './retention-policy.service';

export const retentionRouter = router({
  get: implement(permissionProcedure('org.manage'), retentionProcedures.get).query(({ ctx }) =>
    getRetention(ctx.deps, ctx.identity),
  ),
  put: implement(permissionProcedure('org.manage'), retentionProcedures.put).mutation(({ ctx, input }) =>
    putRetention(ctx.deps, ctx.identity, input),
  ),
  deleteOrg: implement(sessionPermissionProcedure('org.delete'), retentionProcedures.deleteOrg).mutation(
    ({ ctx, input }) => requestOrgDeletion(ctx.deps, ctx.identity, input),
  ),
  exportMe: implement(sessionProcedure, retentionProcedures.exportMe).query(({ ctx }) =>
    exportMe(ctx.deps, ctx.identity),
  ),
  eraseMe: implement(sessionProcedure, retentionProcedures.eraseMe).mutation(({ ctx, input }) =>
    eraseMe(ctx.deps, ctx.identity, input),
  ),
  exportMember: implement(permissionProcedure('org.manage'), retentionProcedures.exportMember).query(
    ({ ctx, input }) => exportMember(ctx.deps, ctx.identity, input.user_id),
  ),
  eraseMember: implement(permissionProcedure('users.remove'), retentionProcedures.eraseMember).mutation(
    ({ ctx, input }) => eraseMember(ctx.deps, ctx.identity, input.user_id),
  ),
});
