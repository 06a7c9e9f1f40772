import type { Queryable, Sql } from '@beckon/db';
import { z } from 'zod';
import type { Identity } from '../../auth/identity';
import { fenceCaches } from '../../caches/fence';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { addJob } from '../../job-queue';
import { JOB_TASKS } from '../../job-tasks';
import { recordOrgChange } from '../audit/audit.service';
import { sweepBlobDeletions } from './blob-deletions';
import { type Batch, inBatches } from './retention-batches';

/**
 * Closes an organization at once and leaves its data to the delete_organization job: marked
 * deleted, its memberships, invitations and credentials gone in this transaction (so no session,
 * API key or OAuth token resolves to it any more: resolve-identity.ts joins memberships).
 */
export async function closeOrganization(tx: Queryable, orgId: string, now: Date): Promise<Date> {
  await tx`update organizations set deletion_requested_at = ${now} where id = ${orgId}`;
  await tx`delete from invitations where org_id = ${orgId}`;
  await tx`delete from memberships where org_id = ${orgId}`;
  await tx`update sessions set revoked_at = ${now} where org_id = ${orgId} and revoked_at is null`;
  await tx`update api_keys set revoked_at = ${now} where org_id = ${orgId} and revoked_at is null`;
  await tx`delete from oauth_records where org_id = ${orgId}`;
  await tx`select ${addJob(tx, 'delete_organization', { org_id: orgId }, { key: `delete_organization:${orgId}` })}`;
  return now;
}

/** POST /api/admin/org/delete (org.delete): the body repeats the slug. */
export async function requestOrgDeletion(deps: Deps, identity: Identity, input: { confirm: string }) {
  const requestedAt = await deps.sql.begin(async (tx) => {
    const [org] = await tx<{ slug: string; is_personal: boolean }[]>`
      select slug, is_personal from organizations
       where id = ${identity.orgId} and deletion_requested_at is null for update`;
    if (!org) throw AppError.notFound();
    if (org.is_personal) {
      throw AppError.conflict(
        'personal_workspace_kept',
        'a personal workspace is deleted with its person only',
      );
    }
    if (input.confirm !== org.slug) {
      throw AppError.validationFailedWith(
        'confirmation_mismatch',
        'confirm must repeat the organization’s slug',
      );
    }
    await recordOrgChange(tx, identity, 'org.delete', { slug: org.slug });
    return closeOrganization(tx, identity.orgId, deps.clock());
  });
  await fenceCaches(deps);
  return { org_id: identity.orgId, deletion_requested_at: requestedAt.toISOString() };
}

/** The organization's rows of a large table, `limit` at a time (by ctid: a TID scan, no sort). */
const rowsOf =
  (sql: Sql, table: string, orgId: string): Batch =>
  async (limit) =>
    (
      await sql`delete from ${sql(table)}
                 where org_id = ${orgId}
                   and ctid = any(array(select ctid from ${sql(table)} where org_id = ${orgId} limit ${limit}))`
    ).count;

/**
 * Its large tables (each indexed by organization), children before parents; what hangs off an
 * item (push entries, deliveries of it) goes with it, the rest with the organization's row.
 */
const LARGE_TABLES = [
  'comments',
  'attachments',
  'delivery_attempts',
  'items',
  'events',
  'audit_entries',
] as const;

/**
 * The delete_organization job: every row of a closed organization, in batches, then the
 * organization itself (its small tables go with it by cascade, the rows no foreign key ties to
 * it in the same transaction), then the files of its attachments. Safe to run twice; an
 * organization not closed is left alone.
 */
export async function deleteOrganization(deps: Deps, payload: unknown): Promise<Record<string, number>> {
  const { org_id: orgId } = z.object(JOB_TASKS.delete_organization.shape).parse(payload);
  const { sql } = deps;
  const [org] =
    await sql`select 1 from organizations where id = ${orgId} and deletion_requested_at is not null`;
  if (!org) return {};
  const removed: Record<string, number> = {};
  for (const table of LARGE_TABLES) {
    removed[table] = await inBatches(deps.env.RETENTION_BATCH_SIZE, rowsOf(sql, table, orgId));
  }
  await sql.begin(async (tx) => {
    await tx`delete from organizations where id = ${orgId}`;
    await deleteUnlinkedRows(tx, orgId);
  });
  removed.files = await sweepBlobDeletions(deps, deps.env.RETENTION_BATCH_SIZE);
  deps.log.info({ org_id: orgId, removed }, 'organization deleted');
  return removed;
}

/**
 * The organization's rows that no foreign key removes with it (coordinator and reference tables
 * may not reference a distributed one: db/src/distribution.ts), in the transaction that deletes
 * the organization, after it (its memberships and invitations, which reference its roles, go by
 * cascade): what the foreign keys' ON DELETE CASCADE did.
 */
async function deleteUnlinkedRows(tx: Queryable, orgId: string) {
  await tx`delete from roles where org_id = ${orgId}`;
  await tx`delete from sessions where org_id = ${orgId}`;
  await tx`delete from magic_link_tokens where org_id = ${orgId}`;
  await tx`delete from oauth_records where org_id = ${orgId}`;
  await tx`delete from organization_slugs where org_id = ${orgId}`;
  await tx`delete from legacy_credentials where org_id = ${orgId}`;
}
