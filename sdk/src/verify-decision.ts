import { actionDigest, type BindableAction } from '@beckon/contracts/proofs/action';
import type { Item } from './types';
import type { WaitOutcome } from './wait';

/** An action to run, as bound to an item: `kind`, its exact `args`, an optional policy version. */
export type BoundAction = BindableAction;

export type DecisionCheck =
  | { ok: true; digest: string }
  | {
      ok: false;
      /**
       * `not_answered`: nobody decided (dismissed, expired, withdrawn, still open);
       * `no_action`: the item binds no action; `mismatch`: it was decided for another action.
       */
      reason: 'not_answered' | 'no_action' | 'mismatch';
      /** The digest of the action given here. */
      digest: string;
      /** The digest the decision is for, when the item binds one. */
      decided: string | null;
    };

/**
 * Checks, before acting, that a decision is for the very action about to run: the item was
 * answered and the digest it binds equals SHA-256 over the RFC 8785 (JCS) form of `action`.
 * Whether the answer approves is the form's business (its values); this says what it decided on.
 */
export async function verifyDecision(
  decision: WaitOutcome | Item,
  action: BoundAction,
): Promise<DecisionCheck> {
  const item = 'item' in decision ? decision.item : decision;
  const digest = await actionDigest(action);
  const decided = item.action?.digest ?? null;
  if (item.status !== 'answered') return { ok: false, reason: 'not_answered', digest, decided };
  if (decided === null) return { ok: false, reason: 'no_action', digest, decided };
  if (decided !== digest) return { ok: false, reason: 'mismatch', digest, decided };
  return { ok: true, digest };
}

export { actionDigest };
