// `pnpm cluster [--resources N] [--workers N]`: several processes on one PostgreSQL, on this machine.
// The database of DATABASE_URL (or the embedded one under DATA_DIR, as `pnpm start` does), then
// scripts/cluster/start.ts: `db:migrate`, the authorization process, N resource processes, N job
// workers (each from its package.json script) and the router on APP_URL's port, taking the
// resource processes in turn. Ctrl-C stops everything. The dashboard is served once built
// (`pnpm build`).
import { parseArgs } from 'node:util';
import { openDatabase } from '@beckon/server/database';
import { ConfigError, loadEnv } from '@beckon/server/env';
import { resolveSigningKey } from '@beckon/server/signing-key';
import { startCluster } from './cluster/start';

const { values } = parseArgs({
  options: { resources: { type: 'string', default: '2' }, workers: { type: 'string', default: '1' } },
});

async function main() {
  const env = loadEnv();
  const database = await openDatabase(env);
  const appUrl = new URL(env.APP_URL);
  const cluster = await startCluster({
    databaseUrl: database.url,
    resources: Number(values.resources),
    workers: Number(values.workers),
    host: env.HOST,
    routerPort: Number(appUrl.port || (appUrl.protocol === 'https:' ? 443 : 80)),
    // One signing key for every process: any of them verifies the others' OAuth tokens.
    env: { OAUTH_SIGNING_KEY: await resolveSigningKey(env) },
    onOutput: (name, line) => console.log(`${name.padEnd(10)} | ${line}`),
  });
  console.log(`database: ${database.description}`);
  console.log(`authorization process: ${cluster.auth.url}`);
  for (const resource of cluster.resources) console.log(`${resource.name}: ${resource.url}`);
  console.log(`workers: ${cluster.workers.length}; router (dashboard and API): ${cluster.url}`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await cluster.stop();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
