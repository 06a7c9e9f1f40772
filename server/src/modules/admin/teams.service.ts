import type {
  CreateTeamInput,
  TeamMemberView,
  TeamView,
  UpdateTeamInput,
} from '@beckon/contracts/admin/teams.contract';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError, isUniqueViolation } from '../../errors';
import { slugify } from '../accounts/users';
import { recordOrgChange } from '../audit/audit.service';
import { enforcePlanLimit } from '../billing/plan-gate';

type TeamRow = Omit<TeamView, 'created_at'> & { created_at: Date };
const teamView = (row: TeamRow): TeamView => ({ ...row, created_at: row.created_at.toISOString() });

const SELECT_TEAMS = `
  select t.id, t.name, t.slug, t.created_at,
         (select count(*)::int from team_members tm where tm.org_id = t.org_id and tm.team_id = t.id) as members
    from teams t where t.org_id = $1`;

async function findTeam(tx: Queryable, orgId: string, teamId: string): Promise<TeamRow> {
  const [row] = await tx.unsafe<TeamRow[]>(`${SELECT_TEAMS} and t.id = $2`, [orgId, teamId]);
  if (!row) throw AppError.notFound();
  return row;
}

const slugTaken = (error: unknown) => {
  throw isUniqueViolation(error, 'teams_org_slug_key')
    ? AppError.conflict('name_taken', 'a team with this slug already exists')
    : error;
};

export async function listTeams(deps: Deps, identity: Identity): Promise<TeamView[]> {
  const rows = await deps.sql.unsafe<TeamRow[]>(`${SELECT_TEAMS} order by t.created_at, t.id`, [
    identity.orgId,
  ]);
  return rows.map(teamView);
}

/**
 * Creates a team within the plan's `max_teams` (402 at the limit). A slug derived from the name
 * gets a numbered suffix when another team has it; one given explicitly that is taken is a 409.
 */
export async function createTeam(deps: Deps, identity: Identity, input: CreateTeamInput): Promise<TeamView> {
  const orgId = identity.orgId;
  const row = await deps.sql
    .begin(async (tx) => {
      await enforcePlanLimit(tx, deps.env, orgId, 'max_teams');
      let slug = input.slug ?? slugify(input.name);
      if (!input.slug) {
        const taken = new Set(
          (await tx<{ slug: string }[]>`select slug from teams where org_id = ${orgId}`).map((t) => t.slug),
        );
        for (let n = 2; taken.has(slug); n++) slug = `${slugify(input.name).slice(0, 56)}-${n}`;
      }
      const id = uuidv7();
      await tx`insert into teams (id, org_id, name, slug) values (${id}, ${orgId}, ${input.name}, ${slug})`;
      await recordOrgChange(tx, identity, 'team.create', { team_id: id, name: input.name, slug });
      return findTeam(tx, orgId, id);
    })
    .catch(slugTaken);
  return teamView(row);
}

export async function updateTeam(deps: Deps, identity: Identity, input: UpdateTeamInput): Promise<TeamView> {
  const orgId = identity.orgId;
  const set: Record<string, unknown> = {};
  if (input.name !== undefined) set.name = input.name;
  if (input.slug !== undefined) set.slug = input.slug;
  const row = await deps.sql
    .begin(async (tx) => {
      const updated = await tx`
        update teams set ${tx(set)}, updated_at = now() where id = ${input.team_id} and org_id = ${orgId}
        returning id`;
      if (updated.length === 0) throw AppError.notFound();
      await recordOrgChange(tx, identity, 'team.update', { team_id: input.team_id, ...set });
      return findTeam(tx, orgId, input.team_id);
    })
    .catch(slugTaken);
  return teamView(row);
}

export async function deleteTeam(deps: Deps, identity: Identity, teamId: string): Promise<TeamView> {
  const row = await deps.sql.begin(async (tx) => {
    const team = await findTeam(tx, identity.orgId, teamId);
    await tx`delete from teams where org_id = ${identity.orgId} and id = ${team.id}`;
    await recordOrgChange(tx, identity, 'team.delete', { team_id: team.id, name: team.name });
    return team;
  });
  return teamView(row);
}

type TeamMemberRow = Omit<TeamMemberView, 'added_at'> & { added_at: Date };
const teamMemberView = (row: TeamMemberRow): TeamMemberView => ({
  ...row,
  added_at: row.added_at.toISOString(),
});

export async function listTeamMembers(
  deps: Deps,
  identity: Identity,
  teamId: string,
): Promise<TeamMemberView[]> {
  await findTeam(deps.sql, identity.orgId, teamId);
  const rows = await deps.sql<TeamMemberRow[]>`
    select u.id as user_id, u.email, u.name, tm.created_at as added_at
      from team_members tm join users u on u.id = tm.user_id
     where tm.org_id = ${identity.orgId} and tm.team_id = ${teamId}
     order by tm.created_at, u.id`;
  return rows.map(teamMemberView);
}

/** Adds a member of the organization (404 for anyone else) to a team (409 if already in it). */
export async function addTeamMember(
  deps: Deps,
  identity: Identity,
  input: { team_id: string; user_id: string },
): Promise<TeamMemberView> {
  const row = await deps.sql.begin(async (tx) => {
    await findTeam(tx, identity.orgId, input.team_id);
    // Held until the insert commits: a concurrent removal of the member waits, then takes the
    // team membership away with the rest.
    const [member] = await tx`
      select 1 from memberships where org_id = ${identity.orgId} and user_id = ${input.user_id} for share`;
    if (!member) throw AppError.notFound();
    const [added] = await tx<TeamMemberRow[]>`
      with added as (
        insert into team_members (org_id, team_id, user_id)
        values (${identity.orgId}, ${input.team_id}, ${input.user_id})
        on conflict do nothing
        returning user_id, created_at)
      select a.user_id, u.email, u.name, a.created_at as added_at from added a join users u on u.id = a.user_id`;
    if (!added) throw AppError.conflict('already_member', 'already a member of the team');
    await recordOrgChange(tx, identity, 'team.add_member', {
      team_id: input.team_id,
      user_id: input.user_id,
    });
    return added;
  });
  return teamMemberView(row);
}

export async function removeTeamMember(
  deps: Deps,
  identity: Identity,
  input: { team_id: string; user_id: string },
): Promise<TeamMemberView> {
  const row = await deps.sql.begin(async (tx) => {
    await findTeam(tx, identity.orgId, input.team_id);
    const [removed] = await tx<TeamMemberRow[]>`
      delete from team_members tm using users u
       where tm.org_id = ${identity.orgId} and tm.team_id = ${input.team_id} and tm.user_id = ${input.user_id}
         and u.id = tm.user_id
      returning tm.user_id, u.email, u.name, tm.created_at as added_at`;
    if (!removed) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'team.remove_member', {
      team_id: input.team_id,
      user_id: input.user_id,
    });
    return removed;
  });
  return teamMemberView(row);
}
