import { z } from 'zod';
import { router } from '../../trpc/init';
import { permissionProcedure } from '../../trpc/procedures';
import { templateMeta, ZTemplate, ZTemplateName, ZUpsertTemplateInput } from './templates.contract';
import { deleteTemplate, listTemplates, upsertTemplate } from './templates.service';

const manage = permissionProcedure('channels.manage');

export const templatesRouter = router({
  list: permissionProcedure('items.read')
    .meta(templateMeta.list)
    .output(z.array(ZTemplate))
    .query(({ ctx }) => listTemplates(ctx.deps, ctx.identity)),
  upsert: manage
    .meta(templateMeta.upsert)
    .input(ZUpsertTemplateInput)
    .output(ZTemplate)
    .mutation(({ ctx, input }) => upsertTemplate(ctx.deps, ctx.identity, input)),
  delete: manage
    .meta(templateMeta.delete)
    .input(ZTemplateName)
    .output(ZTemplate)
    .mutation(({ ctx, input }) => deleteTemplate(ctx.deps, ctx.identity, input.name)),
});
