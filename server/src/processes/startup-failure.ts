import { DataDirInUse } from '@beckon/db';
import type { Env } from '../env';
import { ConfigError } from '../env';
import type { Logger } from '../log';

type Found = { code?: string; port?: number; address?: string; hostname?: string; path?: string };

/** The first error of the cause chain (AggregateErrors included) that carries a system or SQL code. */
function coded(error: unknown, depth = 0): Found | null {
  if (!error || typeof error !== 'object' || depth > 8) return null;
  const e = error as Found & { cause?: unknown; errors?: unknown[] };
  if (typeof e.code === 'string') return e;
  for (const inner of [e.cause, ...(e.errors ?? [])]) {
    const found = coded(inner, depth + 1);
    if (found) return found;
  }
  return null;
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
]);
/** PostgreSQL: wrong password or user, no such database, too many connections, shutting down. */
const REFUSED_BY_POSTGRES = new Set(['28P01', '28000', '3D000', '53300', '57P03']);

/**
 * Why a process could not start, as one sentence naming the setting to check (the database,
 * a port in use, a file under DATA_DIR), or null when the error says nothing that specific.
 */
export function startupProblem(
  error: unknown,
  env: Partial<Env>,
): { setting: string; message: string } | null {
  const found = coded(error);
  const code = found?.code ?? '';
  if (UNREACHABLE.has(code) || REFUSED_BY_POSTGRES.has(code)) {
    const where = found?.address ? ` at ${found.address}${found.port ? `:${found.port}` : ''}` : '';
    const why = REFUSED_BY_POSTGRES.has(code) ? `it refused the connection (${code})` : `${code}${where}`;
    return env.DATABASE_URL
      ? { setting: 'DATABASE_URL', message: `cannot reach the database: ${why}. Check DATABASE_URL` }
      : {
          setting: 'EMBEDDED_POSTGRES_PORT',
          message: `cannot reach the embedded database: ${why}. Check EMBEDDED_POSTGRES_PORT and DATA_DIR`,
        };
  }
  if (code === 'EADDRINUSE' || (code === 'EACCES' && found?.port !== undefined)) {
    const port = found?.port;
    const settings: [string, number | undefined][] = [
      ['PORT', env.PORT],
      ['AUTH_PORT', env.AUTH_PORT],
      ['GATEWAY_PORT', env.GATEWAY_PORT],
      ['EMBEDDED_POSTGRES_PORT', env.EMBEDDED_POSTGRES_PORT],
    ];
    const setting = settings.find(([, value]) => value === port)?.[0] ?? 'PORT';
    const why = code === 'EADDRINUSE' ? 'is in use by another process' : 'may not be opened by this user';
    return { setting, message: `cannot listen: port ${port} ${why}. Check ${setting} (or HOST)` };
  }
  if (error instanceof DataDirInUse) return { setting: 'DATA_DIR', message: error.message };
  if ((code === 'EACCES' || code === 'EROFS' || code === 'ENOSPC') && found?.path) {
    return { setting: 'DATA_DIR', message: `cannot write ${found.path} (${code}). Check DATA_DIR` };
  }
  return null;
}

/**
 * Ends a process that could not start: one line naming the setting to check (a configuration
 * error is its own message, as `loadEnv` wrote it), and exit code 1.
 */
export function exitOnStartupFailure(log: Logger, error: unknown, env: Partial<Env>): never {
  if (error instanceof ConfigError) {
    log.fatal({ setting: 'configuration' }, error.message);
  } else {
    const problem = startupProblem(error, env);
    if (problem) log.fatal({ setting: problem.setting }, `cannot start: ${problem.message}`);
    else log.fatal({ err: error }, 'cannot start');
  }
  process.exit(1);
}
