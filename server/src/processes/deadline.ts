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
