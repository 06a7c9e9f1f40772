import type { Sql } from '@beckon/db';
import type { FastifyInstance } from 'fastify';

const READY_TIMEOUT_MS = 2000;

/** GET /health (the process runs) and GET /ready (the database answers). */
export function registerHealth(app: FastifyInstance, sql: Sql): void {
  app.get('/health', { logLevel: 'warn' }, async (_request, reply) => reply.type('text/plain').send('ok'));
  app.get('/ready', { logLevel: 'warn' }, async (_request, reply) => {
    const ok = await pingDatabase(sql);
    return reply.code(ok ? 200 : 503).send(ok ? { status: 'ready' } : { error: 'database unavailable' });
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
