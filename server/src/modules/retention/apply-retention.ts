import type { Sql } from '@beckon/db';
import { addDays } from '../../clock';
import type { Deps } from '../../deps';
import { recordAudit } from '../audit/audit.service';
import { sweepBlobDeletions } from './blob-deletions';
import {
  archivedItems,
  type Batch,
  inBatches,
  oldAuditEntries,
  oldItems,
  oldRows,
  unchainedAuditEntries,
} from './retention-batches';

type OrgPeriods = {
  org_id: string;
  items_days: number | null;
  archived_items_days: number | null;
  comments_days: number | null;
  attachments_days: number | null;
  audit_days: number;
};

/**
 * Organizations with something past its period: those with a retention policy, and those whose
 * oldest chained audit entry is older than their audit period (the plan's, or a shorter one of
 * their own). One indexed probe per organization with an audit chain.
 */
const organizationsDue = (sql: Sql, now: Date) => sql<OrgPeriods[]>`
  select s.org_id, r.items_days, r.archived_items_days, r.comments_days, r.attachments_days,
         least(coalesce(r.audit_days, p.audit_retention_days), p.audit_retention_days) as audit_days
    from subscriptions s
    join plans p on p.id = s.plan_id
    join organizations o on o.id = s.org_id and o.deletion_requested_at is null
    left join retention_policies r on r.org_id = s.org_id
    left join audit_heads h on h.org_id = s.org_id
   where r.org_id is not null
      or exists (
        select 1 from audit_entries a
         where a.org_id = s.org_id and (a.seq = h.anchor_seq + 1 or (a.seq is null and a.content_hash is null))
           and a.created_at < ${now}::timestamptz
               - make_interval(days => least(coalesce(r.audit_days, p.audit_retention_days),
                                             p.audit_retention_days)))`;

/** What one organization's periods remove, by kind (a kind without a period is not listed). */
function batchesOf(sql: Sql, org: OrgPeriods, now: Date): [string, Batch][] {
  const before = (days: number) => addDays(now, -days);
  const batches: [string, Batch][] = [];
  const id = org.org_id;
  // Comments and attachments first: those of items about to go are counted as items.
  if (org.comments_days) batches.push(['comments', oldRows(sql, 'comments', id, before(org.comments_days))]);
  if (org.attachments_days) {
    batches.push(['attachments', oldRows(sql, 'attachments', id, before(org.attachments_days))]);
  }
  if (org.archived_items_days) {
    batches.push(['archived_items', archivedItems(sql, id, before(org.archived_items_days))]);
  }
  if (org.items_days) batches.push(['items', oldItems(sql, id, before(org.items_days))]);
  batches.push(['audit_entries', oldAuditEntries(sql, id, before(org.audit_days))]);
  batches.push(['audit_entries', unchainedAuditEntries(sql, id, before(org.audit_days))]);
  return batches;
}

export type RetentionReport = { organizations: number; removed: Record<string, number>; files: number };

/**
 * The apply_retention job (hourly, jobs/worker.ts): for each organization, what is past its
 * period goes, in batches of RETENTION_BATCH_SIZE rows. An organization that lost anything gets
 * an audit entry `retention.apply` counting it (written after the audit's own removal, so it
 * starts the kept chain's newest end, never its removed start); the files of removed attachments
 * go last. "Now" is the service's clock. Safe to run twice: a second run finds nothing due.
 */
export async function applyRetention(deps: Deps): Promise<RetentionReport> {
  const { sql } = deps;
  const now = deps.clock();
  const limit = deps.env.RETENTION_BATCH_SIZE;
  const report: RetentionReport = { organizations: 0, removed: {}, files: 0 };
  for (const org of await organizationsDue(sql, now)) {
    const removed: Record<string, number> = {};
    for (const [kind, batch] of batchesOf(sql, org, now)) {
      const n = await inBatches(limit, batch);
      if (n > 0) removed[kind] = (removed[kind] ?? 0) + n;
    }
    if (Object.keys(removed).length === 0) continue;
    report.organizations += 1;
    await recordAudit(sql, {
      orgId: org.org_id,
      action: 'retention.apply',
      actor: { type: 'system', id: null },
      data: { removed },
    });
    for (const [kind, n] of Object.entries(removed)) {
      report.removed[kind] = (report.removed[kind] ?? 0) + n;
      deps.metrics?.retentionRemoved(kind, n);
    }
  }
  report.files = await sweepBlobDeletions(deps, limit);
  return report;
}
