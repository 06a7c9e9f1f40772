import { z } from 'zod';
import { itemStatuses } from '../enums';
import { ZLevel } from '../items/item.contract';
import { ZActor } from '../items/policies.contract';

const ZExportedItem = z.object({
  id: z.uuid(),
  org_id: z.uuid(),
  title: z.string(),
  message: z.string().nullable(),
  level: ZLevel,
  status: z.enum(itemStatuses),
  response: z.unknown().nullable(),
  answered_at: z.string().nullable(),
  answered_by: ZActor.nullable(),
  created_at: z.string(),
});

export const ZPersonExport = z
  .object({
    exported_at: z.string(),
    profile: z.object({
      id: z.uuid(),
      email: z.string(),
      name: z.string().nullable(),
      created_at: z.string(),
    }),
    memberships: z.array(z.object({ org_id: z.uuid(), org_name: z.string(), role: z.string() })),
    items_created: z.array(ZExportedItem).describe('Items the person created'),
    items_answered: z.array(ZExportedItem).describe('Items the person answered (or took part in approving)'),
    answers: z
      .array(
        z.object({
          item_id: z.uuid(),
          values: z.unknown(),
          approves: z.boolean().nullable(),
          at: z.string(),
        }),
      )
      .describe('Every answer the person gave, oldest first'),
    comments: z.array(
      z.object({ id: z.uuid(), item_id: z.uuid(), body: z.string(), created_at: z.string() }),
    ),
  })
  .meta({ id: 'PersonExport' });
export type PersonExport = z.infer<typeof ZPersonExport>;

export const ZEraseMeInput = z.strictObject({
  confirm: z.string().max(320).describe('The person’s email address, typed again'),
});

export const ZErasure = z.object({ user_id: z.uuid(), erased_at: z.string() }).meta({ id: 'Erasure' });

const tags = ['privacy'];
const protect = true;
export const privacyMeta = {
  exportMe: {
    openapi: {
      method: 'GET',
      path: '/me/export',
      protect,
      tags,
      summary: 'Everything Beckon holds about the signed-in person, in every organization they belong to',
    },
  },
  eraseMe: {
    openapi: {
      method: 'POST',
      path: '/me/erase',
      protect,
      tags,
      summary: 'Erase the signed-in person (session only; the body repeats their email)',
      description:
        'Name and email become a pseudonym; sessions, API keys, devices, sign-in links and memberships are removed; answers and comments stay under the pseudonym. The person’s personal workspace is deleted. The only Owner of an organization with other members is a 409.',
    },
  },
  exportMember: {
    openapi: {
      method: 'GET',
      path: '/admin/users/{user_id}/export',
      protect,
      tags,
      summary: 'A member’s data in this organization (org.manage)',
    },
  },
  eraseMember: {
    openapi: {
      method: 'POST',
      path: '/admin/users/{user_id}/erase',
      protect,
      tags,
      summary: 'Erase a member (users.remove)',
      description:
        'As the person’s own erasure. Refused (409) for a person who also belongs to another organization than this one and their personal workspace, and for the only Owner.',
    },
  },
} as const;
