import { type Logger, pino } from 'pino';
import type { Env } from './env';

export type { Logger };

export const createLogger = (env: Env, name: string): Logger =>
  pino({ name, level: env.NODE_ENV === 'test' ? 'warn' : env.LOG_LEVEL });
