import { randomUUID } from 'node:crypto';
import type { Sql } from '@beckon/db';
import type { Logger } from '../log';
import { ACK_CHANNEL, INVALIDATION_CHANNEL, LISTENER_NAME } from './invalidations';

const fenceWaiters = new Map<string, (pid: number) => void>();
const ackListeners = new WeakMap<Sql, Promise<unknown>>();

/** This pool's subscription to the listeners' acknowledgements (made once, again after a failure). */
function listenForAcks(sql: Sql): Promise<unknown> {
  let listening = ackListeners.get(sql);
  if (!listening) {
    listening = sql.listen(ACK_CHANNEL, (message) => {
      const [nonce, pid] = message.split(':');
      if (nonce) fenceWaiters.get(nonce)?.(Number(pid));
    });
    listening.catch(() => ackListeners.delete(sql));
    ackListeners.set(sql, listening);
  }
  return listening;
}

const listeningPids = (sql: Sql, among?: number[]) => sql<{ pid: number }[]>`
  select pid from pg_stat_activity
   where application_name = ${LISTENER_NAME} and datname = current_database()
     ${among ? sql`and pid = any(${among}::int[])` : sql``}`;

/**
 * Waits until the caches of every resource process on this database have applied the changes
 * committed before the call, so a credential revoked through Beckon fails on the very next
 * request to any process (and a webhook just created is seen by the next item change).
 * Listeners connecting meanwhile start empty. One that does not answer within `timeoutMs` (its
 * process hung), or a database error, is logged and makes the call return false; it never throws,
 * as the change itself is already committed.
 */
export async function fenceCaches(
  deps: { sql: Sql; log: Logger },
  { timeoutMs = 2000, resendMs = 50 } = {},
): Promise<boolean> {
  const { sql, log } = deps;
  const nonce = randomUUID();
  const pending = new Set<number>();
  let wake = () => {};
  fenceWaiters.set(nonce, (pid) => {
    if (pending.delete(pid) && pending.size === 0) wake();
  });
  try {
    await listenForAcks(sql);
    for (const { pid } of await listeningPids(sql)) pending.add(pid);
    for (const deadline = Date.now() + timeoutMs; pending.size > 0 && Date.now() < deadline; ) {
      // Sent again until answered: a listener that was (re)connecting may have missed it.
      await sql.notify(INVALIDATION_CHANNEL, `fence:${nonce}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, resendMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (pending.size === 0) break;
      // A listener whose connection is gone serves nothing: no need to wait for it.
      const alive = new Set((await listeningPids(sql, [...pending])).map((row) => row.pid));
      for (const pid of pending) if (!alive.has(pid)) pending.delete(pid);
    }
    if (pending.size > 0) log.warn({ pids: [...pending] }, 'caches did not confirm a change');
    return pending.size === 0;
  } catch (error) {
    log.warn({ err: error }, 'caches could not be fenced');
    return false;
  } finally {
    fenceWaiters.delete(nonce);
  }
}
