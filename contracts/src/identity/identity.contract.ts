import { z } from 'zod';
import type { Meta } from '../meta';

/** The identity object of the specification, as every transport shows it. */
export const ZIdentityView = z
  .object({
    user_id: z.uuid(),
    org_id: z.uuid(),
    agent_id: z.uuid().nullable(),
    source: z.enum(['session', 'api_key']),
    client_id: z.string().optional().describe('Set when the token is an OAuth access token'),
    role: z.string(),
    permissions: z.array(z.string()),
  })
  .meta({ id: 'Identity' });

export type IdentityView = z.infer<typeof ZIdentityView>;

export const whoAmIMeta = {
  openapi: {
    method: 'GET',
    path: '/me',
    protect: true,
    tags: ['identity'],
    summary: 'The identity behind the bearer token',
    description:
      'Resolves the token (session, API key or OAuth access token) with its effective permissions.',
  },
} satisfies Meta;
