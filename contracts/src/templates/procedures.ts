import { z } from 'zod';
import { mutation, query } from '../procedure';
import { templateMeta, ZTemplate, ZTemplateName, ZUpsertTemplateInput } from './templates.contract';

export const templatesProcedures = {
  list: query({ meta: templateMeta.list, output: z.array(ZTemplate) }),
  upsert: mutation({ meta: templateMeta.upsert, input: ZUpsertTemplateInput, output: ZTemplate }),
  delete: mutation({ meta: templateMeta.delete, input: ZTemplateName, output: ZTemplate }),
};
