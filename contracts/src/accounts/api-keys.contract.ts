import { z } from 'zod';
import type { Meta } from '../meta';

export const DEFAULT_KEY_DAYS = 90;

const ZItemAccess = z
  .enum(['organization', 'own'])
  .describe(
    'Which items the key reaches: every item of the organization (default), or only those its own agent created',
  );

export const ZCreateApiKeyInput = z.strictObject({
  agent_id: z.uuid(),
  label: z.string().trim().min(1).max(100),
  expires_in_days: z
    .number()
    .int()
    .min(1)
    .max(3650)
    .default(DEFAULT_KEY_DAYS)
    .describe(`Lifetime in days (default ${DEFAULT_KEY_DAYS})`),
  item_access: ZItemAccess.default('organization'),
});
export type CreateApiKeyInput = z.infer<typeof ZCreateApiKeyInput>;

export const ZCreatedApiKey = z
  .object({
    id: z.uuid(),
    key: z.string().describe('The API key, base64url; shown this once and never again'),
    agent_id: z.uuid(),
    label: z.string(),
    item_access: ZItemAccess,
    expires_at: z.string(),
  })
  .meta({ id: 'CreatedApiKey' });

/** A key as lists show it: never the key, never its hash. */
export const ZApiKey = z
  .object({
    id: z.uuid(),
    agent_id: z.uuid(),
    agent_name: z.string(),
    label: z.string(),
    item_access: ZItemAccess,
    created_at: z.string(),
    expires_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyView = z.infer<typeof ZApiKey>;

export const ZRevokeApiKeyInput = z.strictObject({ key_id: z.uuid() });

const tags = ['api keys'];
const protect = true;
export const apiKeyMeta = {
  create: {
    status: 201,
    oneTimeSecret: true,
    openapi: {
      method: 'POST',
      path: '/api-keys',
      protect,
      tags,
      summary: 'Create an API key for an agent (agents.manage)',
      description:
        "The key acts with its creator's current role intersected with items.read, items.write and items.archive.",
    },
  },
  list: { openapi: { method: 'GET', path: '/api-keys', protect, tags, summary: "The user's API keys" } },
  revoke: {
    openapi: {
      method: 'POST',
      path: '/api-keys/revoke',
      protect,
      tags,
      summary: 'Revoke a key: it fails on the very next request',
      description: "Your own keys, or any of the organization's keys with agents.manage.",
    },
  },
} satisfies Record<string, Meta>;
