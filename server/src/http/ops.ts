import type { Sql } from '@beckon/db';
import type { FastifyInstance } from 'fastify';
import type { DatabaseWatch } from '../database-watch';
import { AppError } from '../errors';
import { sendAppError } from './errors';

const READY_TIMEOUT_MS = 2000;

/**
 * GET /health (the process runs) and GET /ready (the database answers through the process's
 * pool; at once 503 while the watch knows it is down, and a failed ping tells the watch).
 */
export function registerHealth(app: FastifyInstance, sql: Sql, watch?: DatabaseWatch): void {
  app.get('/health', { logLevel: 'warn' }, async (_request, reply) => reply.type('text/plain').send('ok'));
  app.get('/ready', { logLevel: 'warn' }, async (_request, reply) => {
    // While the watch knows it down, ask again now: readiness follows a recovery at once.
    const up = watch?.isDown ? await watch.probe() : true;
    if (up && (await pingDatabase(sql))) return reply.send({ status: 'ready' });
    void watch?.probe();
    return sendAppError(reply, AppError.databaseUnavailable());
  });
}

async function pingDatabase(sql: Sql): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS);
  });
  try {
    return await Promise.race([sql`select 1`.then(() => true as const), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
