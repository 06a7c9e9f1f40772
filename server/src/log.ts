import { type Logger, pino } from 'pino';
import type { Env } from './env';
import { currentRequestId } from './request-context';

export type { Logger };

/** Each line written while serving a request (or a job it enqueued) carries its `request_id`. */
export const logMixin = () => {
  const requestId = currentRequestId();
  return requestId ? { request_id: requestId } : {};
};

/** JSON lines on stdout. */
export const createLogger = (env: Env, name: string): Logger =>
  pino({ name, level: env.NODE_ENV === 'test' ? 'warn' : env.LOG_LEVEL, mixin: logMixin });
