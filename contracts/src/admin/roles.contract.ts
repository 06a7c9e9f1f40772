import { z } from 'zod';
import type { Meta } from '../meta';

export const ZRole = z
  .object({
    id: z.uuid(),
    org_id: z.uuid().nullable().describe('null for the four system roles'),
    name: z.string(),
    description: z.string(),
    is_system: z.boolean(),
    permissions: z.array(z.string()),
    members: z.number().int().describe('Members of this organization with the role'),
    created_at: z.string(),
  })
  .meta({ id: 'Role' });
export type RoleView = z.infer<typeof ZRole>;

const ZPermission = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[^\s,]+$/, { error: 'a permission has no spaces or commas' });
const ZPermissions = z
  .array(ZPermission)
  .max(100)
  .transform((list) => [...new Set(list)])
  .describe('Free-form strings; wildcards `prefix.*` and `*` allowed');
const ZRoleName = z.string().trim().min(1).max(64);

export const ZCreateRoleInput = z.strictObject({
  name: ZRoleName,
  description: z.string().max(500).default(''),
  permissions: ZPermissions,
});
export type CreateRoleInput = z.infer<typeof ZCreateRoleInput>;

export const ZUpdateRoleInput = z
  .strictObject({
    role_id: z.uuid(),
    name: ZRoleName.optional(),
    description: z.string().max(500).optional(),
    permissions: ZPermissions.optional(),
  })
  .refine((input) => [input.name, input.description, input.permissions].some((v) => v !== undefined), {
    error: 'give at least one of name, description, permissions',
  });
export type UpdateRoleInput = z.infer<typeof ZUpdateRoleInput>;

export const ZRoleRef = z.strictObject({ role_id: z.uuid() });

const tags = ['admin'];
const protect = true;
export const roleMeta = {
  list: {
    openapi: {
      method: 'GET',
      path: '/admin/roles',
      protect,
      tags,
      summary: "System roles plus the organization's own (users.invite)",
    },
  },
  create: {
    status: 201,
    openapi: {
      method: 'POST',
      path: '/admin/roles',
      protect,
      tags,
      summary: 'Create a custom role (users.change_role)',
      description:
        'The caller must hold every permission granted, wildcards expanded over the catalog; a free-form permission needs the whole catalog (403 naming one it lacks). A name taken in the organization, or a system role name, is a 409.',
    },
  },
  update: {
    openapi: {
      method: 'PATCH',
      path: '/admin/roles/{role_id}',
      protect,
      tags,
      summary: 'Edit a custom role (users.change_role)',
      description:
        "A system role is a 403. The caller must hold the role's permissions before and after the edit. Members holding the role have the new permissions on their next request.",
    },
  },
  delete: {
    openapi: {
      method: 'DELETE',
      path: '/admin/roles/{role_id}',
      protect,
      tags,
      summary: 'Delete a custom role (users.change_role)',
      description:
        'A system role is a 403. A role with members, or offered by an open invitation, is a 409: move the members with the change-role endpoint (or revoke the invitations) first.',
    },
  },
} satisfies Record<string, Meta>;
