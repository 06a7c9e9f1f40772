import type { Sql } from '@beckon/db';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordAudit } from './audit.service';
import { signCheckpoint } from './audit-chain.service';

/** The action of the entry that records a checkpoint of the entries before it. */
export const CHECKPOINT_ACTION = 'audit.checkpoint';

/** Organizations read per round trip. */
const BATCH = 200;

/**
 * Organizations after `after` (by id) whose chain moved on since their last checkpoint: those
 * whose head entry is not a checkpoint of the entry before it. One indexed probe each, by
 * (org_id, seq); organizations being deleted are left alone.
 */
const organizationsAdvanced = (sql: Sql, after: string) => sql<{ org_id: string }[]>`
  select h.org_id
    from audit_heads h
    join organizations o on o.id = h.org_id and o.deletion_requested_at is null
   where h.org_id > ${after}
     and not exists (
       select 1 from audit_entries a
        where a.org_id = h.org_id and a.seq = h.seq and a.action = ${CHECKPOINT_ACTION}
          and (a.data->>'seq')::bigint = h.seq - 1)
   order by h.org_id
   limit ${BATCH}`;

export type CheckpointReport = { signed: number; broken: string[] };

/**
 * The audit_checkpoints job (every AUDIT_CHECKPOINT_MINUTES, jobs/worker.ts): each organization
 * whose chain advanced gets a checkpoint, signed exactly as POST /api/audit/checkpoint signs one,
 * and recorded as the chain's next entry (`audit.checkpoint`, data `{seq, hash, checkpoint}`), so
 * the export and GET /api/audit carry it to whoever keeps them. A broken chain is not signed:
 * it is logged, and its organization is tried again on the next run. Safe to run twice: a chain
 * whose head is its checkpoint has not advanced.
 */
export async function checkpointOrganizations(deps: Deps): Promise<CheckpointReport> {
  const report: CheckpointReport = { signed: 0, broken: [] };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const page = await organizationsAdvanced(deps.sql, after);
    for (const { org_id: orgId } of page) {
      if (await checkpointOrganization(deps, orgId)) report.signed += 1;
      else report.broken.push(orgId);
    }
    if (page.length < BATCH) return report;
    after = page[page.length - 1]?.org_id ?? after;
  }
}

/** False when the organization's chain is broken (nothing signed, nothing recorded). */
async function checkpointOrganization(deps: Deps, orgId: string): Promise<boolean> {
  try {
    const { seq, hash, checkpoint } = await signCheckpoint(deps, orgId);
    await recordAudit(deps.sql, {
      orgId,
      action: CHECKPOINT_ACTION,
      actor: { type: 'system', id: null },
      data: { seq, hash, checkpoint },
    });
    return true;
  } catch (error) {
    if (!(error instanceof AppError && error.body.code === 'audit_chain_broken')) throw error;
    deps.log.error({ org_id: orgId, broken: error.body.broken }, 'audit chain broken: no checkpoint signed');
    return false;
  }
}
