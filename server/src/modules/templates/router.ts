import { templatesProcedures } from '@beckon/contracts/templates/procedures';
import { implement } from '../../trpc/contract';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { deleteTemplate, listTemplates, upsertTemplate } from './templates.service';

const manage = permissionProcedure('channels.manage');

export const templatesRouter = router({
  list: implement(permissionProcedure('items.read'), templatesProcedures.list).query(({ ctx }) =>
    listTemplates(ctx.deps, ctx.identity),
  ),
  upsert: implement(manage, templatesProcedures.upsert).mutation(({ ctx, input }) =>
    upsertTemplate(ctx.deps, ctx.identity, input),
  ),
  delete: implement(manage, templatesProcedures.delete).mutation(({ ctx, input }) =>
    deleteTemplate(ctx.deps, ctx.identity, input.name),
  ),
});
