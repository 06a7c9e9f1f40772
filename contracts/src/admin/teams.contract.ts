import { z } from 'zod';
import { ZSlug } from '../accounts/account.contract';
import type { Meta } from '../meta';

export const ZTeam = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    members: z.number().int(),
    created_at: z.string(),
  })
  .meta({ id: 'Team' });
export type TeamView = z.infer<typeof ZTeam>;

export const ZTeamMember = z
  .object({ user_id: z.uuid(), email: z.string(), name: z.string().nullable(), added_at: z.string() })
  .meta({ id: 'TeamMember' });
export type TeamMemberView = z.infer<typeof ZTeamMember>;

const ZTeamName = z.string().trim().min(1).max(100);

export const ZCreateTeamInput = z.strictObject({
  name: ZTeamName,
  slug: ZSlug.optional().describe('Derived from the name when absent'),
});
export type CreateTeamInput = z.infer<typeof ZCreateTeamInput>;

export const ZUpdateTeamInput = z
  .strictObject({ team_id: z.uuid(), name: ZTeamName.optional(), slug: ZSlug.optional() })
  .refine((input) => input.name ?? input.slug, { error: 'give a name or a slug' });
export type UpdateTeamInput = z.infer<typeof ZUpdateTeamInput>;

export const ZTeamRef = z.strictObject({ team_id: z.uuid() });
export const ZTeamMemberRef = z.strictObject({ team_id: z.uuid(), user_id: z.uuid() });

const tags = ['admin'];
const protect = true;
export const teamMeta = {
  list: {
    openapi: { method: 'GET', path: '/admin/teams', protect, tags, summary: 'Teams (teams.manage_members)' },
  },
  create: {
    status: 201,
    openapi: {
      method: 'POST',
      path: '/admin/teams',
      protect,
      tags,
      summary: 'Create a team (teams.create; plan gate: max_teams)',
      description: 'A slug given explicitly that another team of the organization has is a 409.',
    },
  },
  update: {
    openapi: {
      method: 'PATCH',
      path: '/admin/teams/{team_id}',
      protect,
      tags,
      summary: 'Rename or re-slug a team (teams.manage_members)',
    },
  },
  delete: {
    openapi: {
      method: 'DELETE',
      path: '/admin/teams/{team_id}',
      protect,
      tags,
      summary: 'Delete a team (teams.delete)',
    },
  },
  members: {
    openapi: {
      method: 'GET',
      path: '/admin/teams/{team_id}/members',
      protect,
      tags,
      summary: "A team's members (teams.manage_members)",
    },
  },
  addMember: {
    status: 201,
    openapi: {
      method: 'POST',
      path: '/admin/teams/{team_id}/members',
      protect,
      tags,
      summary: 'Add a member of the organization to a team (teams.manage_members)',
      description: 'A user who is not a member of the organization is a 404; one already in the team a 409.',
    },
  },
  removeMember: {
    openapi: {
      method: 'DELETE',
      path: '/admin/teams/{team_id}/members/{user_id}',
      protect,
      tags,
      summary: 'Remove a member from a team (teams.manage_members)',
    },
  },
} satisfies Record<string, Meta>;
