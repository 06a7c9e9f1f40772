import type { SessionGrant } from '@beckon/contracts/accounts/account.contract';
import type {
  CreateInvitationInput,
  InvitationView,
} from '@beckon/contracts/invitations/invitations.contract';
import { missingToGrant } from '@beckon/contracts/permissions';
import type { Queryable } from '@beckon/db';
import { uuidv7 } from 'uuidv7';
import type { Identity } from '../../auth/identity';
import { generateOrgToken, hashToken, orgOfToken } from '../../auth/tokens';
import { addDays } from '../../clock';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { createSession, INVITATION_SESSION_DAYS } from '../accounts/sessions';
import { normalizeEmail } from '../accounts/users';
import { lockGivenRole } from '../admin/members.service';
import { recordAudit, recordOrgChange } from '../audit/audit.service';
import { enforcePlanLimit } from '../billing/plan-gate';

type InvitationRow = {
  id: string;
  org_id: string;
  kind: 'email' | 'link';
  email: string | null;
  role_id: string;
  role_name: string;
  role_description: string;
  org_name: string;
  max_uses: number;
  use_count: number;
  expires_at: Date;
  revoked_at: Date | null;
  created_by: string | null;
  created_at: Date;
};

const SELECT_INVITATION = `
  select i.id, i.org_id, i.kind, i.email, i.role_id, r.name as role_name,
         r.description as role_description, o.name as org_name, i.max_uses, i.use_count,
         i.expires_at, i.revoked_at, i.created_by, i.created_at
    from invitations i join roles r on r.id = i.role_id join organizations o on o.id = i.org_id`;

const invitationView = (row: InvitationRow): InvitationView => ({
  id: row.id,
  kind: row.kind,
  email: row.email,
  role: { id: row.role_id, name: row.role_name },
  max_uses: row.max_uses,
  use_count: row.use_count,
  expires_at: row.expires_at.toISOString(),
  revoked_at: row.revoked_at?.toISOString() ?? null,
  created_by: row.created_by,
  created_at: row.created_at.toISOString(),
});

/** Why an invitation can no longer be used, or null while it is active. */
function inactiveReason(row: InvitationRow, now: Date): string | null {
  if (row.revoked_at) return 'invitation revoked';
  if (row.expires_at <= now) return 'invitation expired';
  if (row.use_count >= row.max_uses) return 'invitation already used';
  return null;
}

export async function createInvitation(deps: Deps, identity: Identity, input: CreateInvitationInput) {
  const code = generateOrgToken(identity.orgId);
  const now = deps.clock();
  const id = uuidv7();
  const email = input.email ? normalizeEmail(input.email) : null;
  const row = await deps.sql.begin(async (tx) => {
    const role = await lockGivenRole(tx, identity.orgId, input.role_id);
    const missing = missingToGrant(identity.permissions, role.permissions);
    if (missing) throw AppError.permissionDenied(missing);
    await tx`insert into invitations (id, org_id, role_id, kind, email, code_hash, max_uses, expires_at, created_by, created_at)
             values (${id}, ${identity.orgId}, ${input.role_id}, ${input.kind}, ${email}, ${hashToken(code)},
                     ${input.max_uses ?? 1}, ${addDays(now, input.expires_in_days)}, ${identity.userId}, ${now})`;
    await recordOrgChange(tx, identity, 'invitation.create', { invitation_id: id, kind: input.kind, email });
    return findInvitation(tx, { orgId: identity.orgId, id });
  });
  if (!row) throw AppError.internal();
  const url = `${deps.env.APP_URL}/invite/${encodeURIComponent(code)}`;
  if (email) {
    await deps.mailer.send({
      to: email,
      subject: `You are invited to ${row.org_name} on Beckon`,
      text: `You are invited to join ${row.org_name} on Beckon as ${row.role_name}.\n\nAccept here (valid until ${row.expires_at.toISOString()}):\n\n${url}\n`,
    });
  }
  return { ...invitationView(row), code, url };
}

/**
 * An invitation of the organization by id, or the one an invitee's code names: found by the
 * organization the code carries (generateOrgToken) and its hash. A code issued before codes named
 * their organization is found through legacy_credentials, the organization of its hash.
 */
async function findInvitation(
  tx: Queryable,
  by: { orgId: string; id: string } | { code: string },
  lock = false,
) {
  const [where, values] =
    'id' in by ? ['i.org_id = $1 and i.id = $2', [by.orgId, by.id]] : codeFilter(by.code);
  const [row] = await tx.unsafe<InvitationRow[]>(
    `${SELECT_INVITATION} where ${where}${lock ? ' for update of i' : ''}`,
    values,
  );
  return row;
}

function codeFilter(code: string): [string, string[]] {
  const hash = hashToken(code);
  const named = orgOfToken(code);
  return named
    ? ['i.org_id = $1 and i.code_hash = $2', [named, hash]]
    : [
        'i.org_id = (select org_id from legacy_credentials where token_hash = $1) and i.code_hash = $1',
        [hash],
      ];
}

export async function listInvitations(deps: Deps, identity: Identity): Promise<InvitationView[]> {
  const rows = await deps.sql.unsafe<InvitationRow[]>(
    `${SELECT_INVITATION}
      where i.org_id = $1 and i.revoked_at is null and i.expires_at > $2 and i.use_count < i.max_uses
      order by i.created_at desc, i.id desc`,
    [identity.orgId, deps.clock()],
  );
  return rows.map(invitationView);
}

export async function revokeInvitation(deps: Deps, identity: Identity, id: string): Promise<InvitationView> {
  const now = deps.clock();
  return deps.sql.begin(async (tx) => {
    const revoked = await tx`
      update invitations set revoked_at = coalesce(revoked_at, ${now})
       where id = ${id} and org_id = ${identity.orgId} returning id`;
    if (revoked.length === 0) throw AppError.notFound();
    await recordOrgChange(tx, identity, 'invitation.revoke', { invitation_id: id });
    const row = await findInvitation(tx, { orgId: identity.orgId, id });
    if (!row) throw AppError.notFound();
    return invitationView(row);
  });
}

/** What an invitee may see before signing in: no code, no address, no ids. */
export async function previewInvitation(deps: Deps, code: string) {
  const row = await findInvitation(deps.sql, { code });
  if (!row) throw AppError.notFound();
  const reason = inactiveReason(row, deps.clock());
  if (reason) throw AppError.gone('invitation_inactive', reason);
  return {
    org: { name: row.org_name },
    role: { name: row.role_name, description: row.role_description },
    kind: row.kind,
    expires_at: row.expires_at.toISOString(),
  };
}

/**
 * Joins the organization with the invitation's role and answers a 7-day session scoped to it.
 * The invitation row is locked, so its uses are counted exactly; the seat count is taken under
 * the organization's subscription lock (plan gate max_seats).
 */
export async function acceptInvitation(deps: Deps, identity: Identity, code: string): Promise<SessionGrant> {
  const now = deps.clock();
  return deps.sql.begin(async (tx) => {
    const row = await findInvitation(tx, { code }, true);
    if (!row) throw AppError.notFound();
    const reason = inactiveReason(row, now);
    if (reason) throw AppError.gone('invitation_inactive', reason);
    if (row.email) {
      const [user] = await tx<{ email: string }[]>`select email from users where id = ${identity.userId}`;
      if (!user || normalizeEmail(user.email) !== row.email) {
        throw AppError.forbidden('other_email', 'this invitation is for another email address');
      }
    }
    const member =
      await tx`select 1 from memberships where org_id = ${row.org_id} and user_id = ${identity.userId}`;
    if (member.length > 0) throw AppError.conflict('already_member', 'already a member of this organization');
    await enforcePlanLimit(tx, deps.env, row.org_id, 'max_seats');
    await tx`insert into memberships (id, org_id, user_id, role_id)
             values (${uuidv7()}, ${row.org_id}, ${identity.userId}, ${row.role_id})`;
    await tx`update invitations set use_count = use_count + 1 where org_id = ${row.org_id} and id = ${row.id}`;
    const grant = await createSession(tx, {
      userId: identity.userId,
      orgId: row.org_id,
      origin: 'invitation',
      now,
      days: INVITATION_SESSION_DAYS,
    });
    await recordAudit(tx, {
      orgId: row.org_id,
      action: 'invitation.accept',
      actor: { type: 'user', id: identity.userId },
      data: { invitation_id: row.id, role: row.role_name },
    });
    return grant;
  });
}
