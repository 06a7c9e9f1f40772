import { AsyncLocalStorage } from 'node:async_hooks';
import { GENESIS_HASH } from '@beckon/contracts/proofs/audit-chain';
import type { Sql } from '@beckon/db';

/**
 * Events and audit entries are written in their change's statement without a place in their
 * organization's order: taking that place in the writing transaction would make every change of
 * an organization wait for the commit of the one before it (a row lock held through commit). The
 * sequencer gives it once the change has committed: `beckon_sequence` (migration 0040) numbers an
 * organization's new events in commit order, tells the streams of every process (NOTIFY, once per
 * run), and links its new audit entries to the chain. Runs of one organization take turns (its
 * counter's row lock), and each takes every change committed before it, so concurrent changes
 * share one run.
 *
 * Who runs it: the unit of work that wrote (a procedure, a request, a job: `sequencedAfter`),
 * before it answers, so what a caller sees after an answer is numbered and linked; readers that
 * need the whole order (audit verification, export, checkpoints: `settle`); and, for changes whose
 * writer died between commit and run, a sweep (`sweep`, every second in the worker process).
 */
export class Sequencer {
  /** Per organization: the run that has not started yet (later changes join it). */
  private readonly queued = new Map<string, Promise<void>>();
  /** Per organization: the end of the last run started or queued. */
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(private readonly sql: Sql) {}

  /** Resolves once a run that began after this call has numbered and linked `orgIds`' changes. */
  async settle(orgIds: Iterable<string>): Promise<void> {
    await Promise.all([...orgIds].map((orgId) => this.settleOrg(orgId)));
  }

  private settleOrg(orgId: string): Promise<void> {
    const queued = this.queued.get(orgId);
    if (queued) return queued;
    // A run under way may have read before this change committed: the next one takes it.
    const run = (this.tails.get(orgId) ?? Promise.resolve()).then(() => {
      this.queued.delete(orgId);
      return this.once(orgId);
    });
    this.queued.set(orgId, run);
    const tail = run.catch(() => {});
    this.tails.set(orgId, tail);
    void tail.then(() => {
      if (this.tails.get(orgId) === tail) this.tails.delete(orgId);
    });
    return run;
  }

  private async once(orgId: string): Promise<void> {
    await this.sql`select beckon_sequence(${orgId}::uuid, ${GENESIS_HASH})`;
  }

  /**
   * Runs for every organization with changes committed more than `olderThanMs` ago and never
   * numbered or linked (their writer stopped before its run); answers how many organizations.
   */
  async sweep(olderThanMs = 1000): Promise<number> {
    const orgs = await this.sql<{ org_id: string }[]>`
      select org_id from events
       where seq is null and created_at < now() - make_interval(secs => ${olderThanMs / 1000})
      union
      select org_id from audit_entries
       where seq is null and content_hash is not null
         and created_at < now() - make_interval(secs => ${olderThanMs / 1000})`;
    await this.settle(orgs.map((row) => row.org_id));
    return orgs.length;
  }
}

/** The organizations whose events or audit entries the current unit of work wrote. */
const written = new AsyncLocalStorage<Set<string>>();

/** Runs `work` collecting in `orgs` the organizations it writes events or audit entries of. */
export const collectingWrites = <T>(orgs: Set<string>, work: () => T): T => written.run(orgs, work);

/** Notes that the current unit of work writes an event or audit entry of `orgId`. */
export function markWritten(orgId: string): void {
  written.getStore()?.add(orgId);
}

/**
 * Runs `work` (which commits what it writes), then the sequencer for the organizations it wrote
 * to, even when it failed part way. A sequencer that cannot run leaves the changes to the sweep:
 * they are committed, and the caller's answer must say so.
 */
export async function sequencedAfter<T>(
  sequencer: Sequencer | undefined,
  work: () => Promise<T>,
  failed: (err: unknown) => void,
): Promise<T> {
  if (!sequencer) return work();
  const orgs = new Set<string>();
  try {
    return await written.run(orgs, work);
  } finally {
    if (orgs.size > 0) await sequencer.settle(orgs).catch(failed);
  }
}
