import { z } from 'zod';
import type { Meta } from '../meta';

export const ZAgent = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    created_by: z.uuid().nullable(),
    active_keys: z.number().int().describe('Keys neither revoked nor expired'),
    created_at: z.string(),
  })
  .meta({ id: 'Agent' });
export type AgentView = z.infer<typeof ZAgent>;

export const ZCreateAgentInput = z.strictObject({
  name: z.string().trim().min(1).max(100),
  description: z.string().max(1000).optional(),
});
export type CreateAgentInput = z.infer<typeof ZCreateAgentInput>;

const tags = ['admin'];
const protect = true;
export const agentMeta = {
  list: {
    openapi: {
      method: 'GET',
      path: '/admin/agents',
      protect,
      tags,
      summary: 'List API agents (agents.manage)',
    },
  },
  create: {
    status: 201,
    openapi: {
      method: 'POST',
      path: '/admin/agents',
      protect,
      tags,
      summary: 'Create an API agent (agents.manage; plan gate: agents)',
      description: 'Then create its keys with POST /auth/api-keys.',
    },
  },
} satisfies Record<string, Meta>;
