import type { Logger } from '../log';

/**
 * A process that has not stopped within the deadline exits anyway (1): under an orchestrator it
 * would be killed a little later, with nothing logged. What it cut short is retried elsewhere.
 */
export function exitByDeadline(log: Pick<Logger, 'error'>, ms: number): void {
  setTimeout(() => {
    log.error({ setting: 'SHUTDOWN_TIMEOUT_MS', ms }, 'did not stop within SHUTDOWN_TIMEOUT_MS: exiting');
    process.exit(1);
  }, ms).unref();
}

/**
 * Calls `stop` once on SIGTERM, SIGINT or SIGHUP (its terminal closed), and, for a process the
 * launcher forked (server/src/main.ts), when the launcher is gone: its IPC channel closes even
 * when it was killed with SIGKILL, and a child left behind would hold its ports and keep retrying
 * a database that stopped with it.
 */
export function stopOnSignals(stop: (reason: string) => void): void {
  let stopped = false;
  const once = (reason: string) => {
    if (stopped) return;
    stopped = true;
    stop(reason);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => once(signal));
  if (process.connected) process.once('disconnect', () => once('launcher gone'));
}

/** What a child tells the launcher that forked it once its port is open (server/src/main.ts). */
export const LISTENING = 'beckon:listening';

/** Tells the launcher, if one forked this process, that it is listening. */
export function reportListening(): void {
  if (process.connected) process.send?.(LISTENING);
}
