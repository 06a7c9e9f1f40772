import type { Deps } from '../deps';

/** Every this often, a waiting call with a progress token reports progress. */
export const PROGRESS_EVERY_MS = 5_000;

/** Whether the item has an outcome (left "open"; an archived one by the status it had). */
async function settled(deps: Deps, orgId: string, itemId: string): Promise<boolean> {
  const [row] = await deps.sql<{ done: boolean }[]>`
    select coalesce(case when status = 'archived' then status_before_archive else status end, 'open') <> 'open'
           as done
      from items where id = ${itemId} and org_id = ${orgId}`;
  return row ? row.done : true;
}

/**
 * Resolves true once the item has an outcome, false when `ms` passed or `signal` aborted first.
 * The process's event hub wakes it (any process may have made the change); without one (or when
 * the hub may have missed notifications) it reads the item again.
 */
export function waitForOutcome(
  deps: Deps,
  orgId: string,
  itemId: string,
  ms: number,
  signal?: AbortSignal,
): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (outcome: boolean) => {
      if (done) return;
      done = true;
      for (const timer of timers) clearTimeout(timer);
      unsubscribe();
      signal?.removeEventListener('abort', aborted);
      resolve(outcome);
    };
    const check = () =>
      void settled(deps, orgId, itemId).then(
        (outcome) => outcome && finish(true),
        () => {},
      );
    const aborted = () => finish(false);
    const unsubscribe =
      deps.events?.subscribe(orgId, {
        event: (event) => event.item_id === itemId && check(),
        lost: check,
      }) ?? (() => {});
    if (!deps.events) timers.push(setInterval(check, 1000));
    timers.push(setTimeout(() => finish(false), ms));
    if (signal?.aborted) return finish(false);
    signal?.addEventListener('abort', aborted);
    // Subscribed first, then read: an outcome committed in between is seen one way or the other.
    check();
  });
}
