import {
  type PutRetentionInput,
  RETENTION_FIELDS,
  type RetentionPolicyView,
} from '@beckon/contracts/retention/retention.contract';
import type { Queryable } from '@beckon/db';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { recordOrgChange } from '../audit/audit.service';

type Periods = Record<(typeof RETENTION_FIELDS)[number], number | null>;
type PolicyRow = Periods & { plan_audit_days: number; updated_at: Date | null };

/** The organization's periods (null everywhere when it never set any) and its plan's audit retention. */
const readPolicy = async (sql: Queryable, orgId: string) => {
  const [row] = await sql<PolicyRow[]>`
    select r.items_days, r.archived_items_days, r.comments_days, r.attachments_days, r.audit_days,
           p.audit_retention_days as plan_audit_days, r.updated_at
      from subscriptions s join plans p on p.id = s.plan_id
      left join retention_policies r on r.org_id = s.org_id
     where s.org_id = ${orgId}`;
  if (!row) throw AppError.notFound();
  return row;
};

const policyView = (row: PolicyRow): RetentionPolicyView => ({
  ...row,
  updated_at: row.updated_at?.toISOString() ?? null,
});

/** GET /api/admin/retention. */
export async function getRetention(deps: Deps, identity: Identity): Promise<RetentionPolicyView> {
  return policyView(await readPolicy(deps.sql, identity.orgId));
}

/** PUT /api/admin/retention: every period at once; a period left out keeps that data forever. */
export async function putRetention(
  deps: Deps,
  identity: Identity,
  input: PutRetentionInput,
): Promise<RetentionPolicyView> {
  const periods = Object.fromEntries(
    RETENTION_FIELDS.map((field) => [field, input[field] ?? null]),
  ) as Periods;
  return deps.sql.begin(async (tx) => {
    const { plan_audit_days: planDays } = await readPolicy(tx, identity.orgId);
    if (periods.audit_days !== null && periods.audit_days > planDays) {
      throw AppError.invalid({ audit_days: `must be at most ${planDays} (the plan’s audit retention)` });
    }
    await tx`
      insert into retention_policies ${tx({ org_id: identity.orgId, ...periods, updated_at: deps.clock() })}
      on conflict (org_id) do update
        set items_days = excluded.items_days, archived_items_days = excluded.archived_items_days,
            comments_days = excluded.comments_days, attachments_days = excluded.attachments_days,
            audit_days = excluded.audit_days, updated_at = excluded.updated_at`;
    await recordOrgChange(tx, identity, 'retention.update', periods);
    return policyView(await readPolicy(tx, identity.orgId));
  });
}
