import type { AuditCheckpoint, AuditVerdict } from '@beckon/contracts/audit/audit.contract';
import {
  type ChainedEntry,
  type ChainPoint,
  GENESIS_HASH,
  verifyChain,
} from '@beckon/contracts/proofs/audit-chain';
import type { Identity } from '../../auth/identity';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { jwksUrl } from '../receipts/receipt-keys';
import { signWithOrgKey } from '../receipts/receipts';

/** Rows read per round trip while walking a chain. */
const BATCH = 500;

type Head = { seq: number; hash: string; anchor_seq: number; anchor_hash: string };
type ChainRow = Omit<ChainedEntry, 'created_at'> & { created_at: Date };

/**
 * Where the organization's chain starts and where it ends, once every entry committed before
 * the call is linked (realtime/sequencer.ts). Entries up to that head are all committed (the
 * sequencer moves the head as it links them); later ones are left for the next walk.
 */
export async function auditBounds(deps: Deps, orgId: string) {
  await deps.sequencer?.settle([orgId]);
  const [head] = await deps.sql<Head[]>`
    select seq::float8 as seq, hash, anchor_seq::float8 as anchor_seq, anchor_hash
      from audit_heads where org_id = ${orgId}`;
  const anchor: ChainPoint = head
    ? { seq: head.anchor_seq, hash: head.anchor_hash }
    : { seq: 0, hash: GENESIS_HASH };
  return { anchor, head: head ? { seq: head.seq, hash: head.hash } : null };
}

/** The organization's chained entries from the anchor to `head`, in seq order, streamed. */
export async function* chainEntries(
  deps: Deps,
  orgId: string,
  anchor: ChainPoint,
  head: ChainPoint | null,
): AsyncGenerator<ChainedEntry> {
  if (!head) return;
  const cursor = deps.sql<ChainRow[]>`
    select seq::float8 as seq, id, org_id, item_id, action, actor_type, actor_id, data, created_at,
           prev_hash, hash
      from audit_entries
     where org_id = ${orgId} and seq > ${anchor.seq} and seq <= ${head.seq}
     order by seq`.cursor(BATCH);
  for await (const rows of cursor) {
    for (const row of rows) yield { ...row, created_at: row.created_at.toISOString() };
  }
}

/** The first broken link of an organization's chain, if any. */
export async function verifyOrgChain(deps: Deps, orgId: string): Promise<AuditVerdict> {
  const { anchor, head } = await auditBounds(deps, orgId);
  const verdict = await verifyChain(chainEntries(deps, orgId, anchor, head), anchor, head);
  return { ...verdict, head };
}

/** GET /api/audit/verify: the first broken link of the caller's organization, if any. */
export const verifyAudit = (deps: Deps, identity: Identity) => verifyOrgChain(deps, identity.orgId);

export const CHECKPOINT_TYPE = 'beckon-audit-checkpoint+jwt';

/**
 * The chain walked, then its head signed like a receipt. A broken chain is never signed (409
 * naming the first broken link). Kept by an auditor, a checkpoint pins every entry up to its
 * seq: a chain rewritten later no longer reaches its hash. Made on request (POST
 * /api/audit/checkpoint) and by the audit_checkpoints job (audit-checkpoints.ts).
 */
export async function signCheckpoint(deps: Deps, orgId: string): Promise<AuditCheckpoint> {
  const verdict = await verifyOrgChain(deps, orgId);
  if (!verdict.valid) {
    throw AppError.conflict('audit_chain_broken', `the audit chain is broken at seq ${verdict.broken?.seq}`, {
      broken: verdict.broken,
    });
  }
  const { last, anchor } = verdict;
  const checkpoint = await signWithOrgKey(deps.sql, deps.env, orgId, CHECKPOINT_TYPE, {
    iss: deps.env.RESOURCE_URL,
    iat: Math.floor(Date.now() / 1000),
    org_id: orgId,
    seq: last.seq,
    hash: last.hash,
    anchor_seq: anchor.seq,
    anchor_hash: anchor.hash,
  });
  return { checkpoint, seq: last.seq, hash: last.hash, jwks_url: jwksUrl(deps.env, orgId) };
}

/** POST /api/audit/checkpoint: a checkpoint of the caller's organization, handed to the caller. */
export const auditCheckpoint = (deps: Deps, identity: Identity) => signCheckpoint(deps, identity.orgId);
