import { jcsDigest, sha256Hex } from './jcs';

/**
 * The audit chain of an organization: entry n's `hash` is SHA-256 (hex) of the previous entry's
 * `hash` followed by the entry's content digest (SHA-256 over the JCS form of its fields, see
 * `auditContent`). The first entry follows the anchor: 64 zeros, or the last entry removed by the
 * retention period. The database writes links (server/src/modules/audit/audit.service.ts); this
 * file is how anyone checks them, the server, `beckon audit verify` and an auditor alike.
 */
export const GENESIS_HASH = '0'.repeat(64);

export type ChainedEntry = {
  seq: number;
  id: string;
  org_id: string;
  item_id: string | null;
  action: string;
  actor_type: string;
  actor_id: string | null;
  data: Record<string, unknown>;
  /** ISO 8601 with milliseconds, as the API shows it. */
  created_at: string;
  prev_hash: string;
  hash: string;
};

/** A point of the chain: the anchor it starts after, or its head. */
export type ChainPoint = { seq: number; hash: string };

/** What an entry's content digest covers: everything but its place in the chain. */
export const auditContent = (entry: Omit<ChainedEntry, 'seq' | 'prev_hash' | 'hash'>) => ({
  id: entry.id,
  org_id: entry.org_id,
  item_id: entry.item_id,
  action: entry.action,
  actor_type: entry.actor_type,
  actor_id: entry.actor_id,
  data: entry.data,
  created_at: entry.created_at,
});

export const contentDigest = (entry: Omit<ChainedEntry, 'seq' | 'prev_hash' | 'hash'>) =>
  jcsDigest(auditContent(entry));

/** The link hash: both halves are lower-case hex, concatenated as text. */
export const linkHash = (prevHash: string, content: string) => sha256Hex(prevHash + content);

export type BrokenLink = {
  seq: number;
  id: string | null;
  /**
   * `missing`: an entry between the previous one and this one is gone (a gap in seq);
   * `prev_hash`: the entry does not follow the one before it (rewritten or reordered);
   * `hash`: the entry's content or its hash was changed after it was written;
   * `head`: entries after the last one are gone (the organization's head is further on).
   */
  reason: 'missing' | 'prev_hash' | 'hash' | 'head';
};

export type ChainVerdict = {
  valid: boolean;
  /** Entries checked. */
  entries: number;
  anchor: ChainPoint;
  /** The last entry checked. */
  last: ChainPoint;
  /** The first broken link, null when every link holds. */
  broken: BrokenLink | null;
};

/**
 * Walks a chain in seq order from its anchor and names the first broken link. `head`, when
 * given, is where the organization's chain ends now: fewer entries than that is a break (a
 * function is read after the last entry: a streamed export names its head at the end).
 */
export async function verifyChain(
  entries: AsyncIterable<ChainedEntry> | Iterable<ChainedEntry>,
  anchor: ChainPoint,
  endsAt?: ChainPoint | null | (() => ChainPoint | null | undefined),
): Promise<ChainVerdict> {
  let last: ChainPoint = anchor;
  let count = 0;
  const verdict = (broken: BrokenLink | null): ChainVerdict => ({
    valid: broken === null,
    entries: count,
    anchor,
    last,
    broken,
  });
  for await (const entry of entries) {
    if (entry.seq !== last.seq + 1) return verdict({ seq: last.seq + 1, id: null, reason: 'missing' });
    if (entry.prev_hash !== last.hash) return verdict({ seq: entry.seq, id: entry.id, reason: 'prev_hash' });
    if (entry.hash !== (await linkHash(entry.prev_hash, await contentDigest(entry)))) {
      return verdict({ seq: entry.seq, id: entry.id, reason: 'hash' });
    }
    count += 1;
    last = { seq: entry.seq, hash: entry.hash };
  }
  const head = typeof endsAt === 'function' ? endsAt() : endsAt;
  if (head && (head.seq !== last.seq || head.hash !== last.hash)) {
    return verdict({ seq: last.seq + 1, id: null, reason: 'head' });
  }
  return verdict(null);
}
