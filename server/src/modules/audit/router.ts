import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { auditMeta, ZAuditPage, ZListAuditInput } from './audit.contract';
import { listAudit } from './audit.service';

export const auditRouter = router({
  list: permissionProcedure('audit.read')
    .meta(auditMeta.list)
    .input(ZListAuditInput)
    .output(ZAuditPage)
    .query(({ ctx, input }) => listAudit(ctx.deps, ctx.identity, input)),
});
