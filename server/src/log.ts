import { format, stripVTControlCharacters } from 'node:util';
import { type Logger, pino } from 'pino';
import type { Env } from './env';
import { currentRequestId } from './request-context';
import { activeTraceIds } from './tracing/tracing';

export type { Logger };

/**
 * Each line written while serving a request (or a job it enqueued) carries its `request_id`, and
 * when tracing, the active span's `trace_id` and `span_id`.
 */
export const logMixin = () => {
  const requestId = currentRequestId();
  const ids = activeTraceIds();
  if (!ids) return requestId ? { request_id: requestId } : {};
  return requestId ? { request_id: requestId, ...ids } : ids;
};

/**
 * An error as a log line shows it: type, message, stack and its own fields, but not the database
 * client that node-postgres attaches to a connection's error (the job worker's pool logs those
 * under `error`): that is kilobytes of the client's internals on every line of a database outage.
 * Nor the stack of a failed system call, which names only Node's internals.
 */
export function errorSerializer(value: unknown): unknown {
  const serialized = pino.stdSerializers.err(value as Error) as unknown;
  if (serialized === null || typeof serialized !== 'object') return serialized;
  const { client: _client, ...rest } = serialized as Record<string, unknown>;
  // A failed system call (a connection refused while a process restarts): its stack is Node's own.
  if (typeof rest.syscall === 'string' && typeof rest.code === 'string') delete rest.stack;
  return rest;
}

/** JSON lines on stdout. */
export const createLogger = (env: Env, name: string): Logger =>
  pino({
    name,
    level: env.NODE_ENV === 'test' ? 'warn' : env.LOG_LEVEL,
    mixin: logMixin,
    serializers: { err: errorSerializer, error: errorSerializer },
  });

/**
 * What libraries write with console.* (oidc-provider's notices, a deprecation) goes to the log as
 * JSON lines too, so a process writes nothing else on stdout and stderr.
 */
export function routeConsoleToLog(log: Logger): void {
  const line = (args: unknown[]) => stripVTControlCharacters(format(...args));
  console.log = console.info = (...args: unknown[]) => log.info({ source: 'console' }, line(args));
  console.debug = (...args: unknown[]) => log.debug({ source: 'console' }, line(args));
  console.warn = (...args: unknown[]) => log.warn({ source: 'console' }, line(args));
  console.error = (...args: unknown[]) => log.error({ source: 'console' }, line(args));
}
