import { auditProcedures } from '@beckon/contracts/audit/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { listAudit } from './audit.service';
import { auditCheckpoint, verifyAudit } from './audit-chain.service';

export const auditRouter = router({
  list: implement(permissionProcedure('audit.read'), auditProcedures.list).query(({ ctx, input }) =>
    listAudit(ctx.deps, ctx.identity, input),
  ),
  checkpoint: implement(permissionProcedure('audit.read'), auditProcedures.checkpoint).mutation(({ ctx }) =>
    auditCheckpoint(ctx.deps, ctx.identity),
  ),
  verify: implement(permissionProcedure('audit.read'), auditProcedures.verify).query(({ ctx }) =>
    verifyAudit(ctx.deps, ctx.identity),
  ),
});
