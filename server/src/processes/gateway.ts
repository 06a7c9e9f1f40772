import { fileURLToPath } from 'node:url';
import { buildGateway } from '../http/gateway';
import { createLogger, routeConsoleToLog } from '../log';
import { startTracing } from '../tracing/tracing';
import { exitByDeadline, reportListening, stopOnSignals } from './deadline';
import { loadEnvOrExit } from './run';
import { exitOnStartupFailure } from './startup-failure';

// The gateway of `pnpm start`: the dashboard and the API on APP_URL's port (see http/gateway.ts).
const env = loadEnvOrExit('beckon-gateway');
const log = createLogger(env, 'beckon-gateway');
routeConsoleToLog(log);
const stopTracing = await startTracing(env, 'gateway');
const host = env.HOST === '0.0.0.0' || env.HOST === '::' ? '127.0.0.1' : env.HOST;
// web/dist of the repository (or of the deployed layout: see docs/deployment.md), from
// src/processes/ or from the compiled server/dist/.
const fromHere = import.meta.url.endsWith('.ts') ? '../../../web/dist' : '../../web/dist';
const webDist = env.WEB_DIST ?? fileURLToPath(new URL(fromHere, import.meta.url));
const app = await buildGateway(
  log,
  { resource: `http://${host}:${env.PORT}`, auth: `http://${host}:${env.AUTH_PORT}` },
  webDist,
  { appUrl: env.APP_URL, trustProxy: env.TRUST_PROXY, limits: env },
);
const appUrl = new URL(env.APP_URL);
const appPort = Number(appUrl.port || (appUrl.protocol === 'https:' ? 443 : 80));
await app
  .listen({ host: env.HOST, port: env.GATEWAY_PORT ?? appPort })
  .catch((error: unknown) =>
    exitOnStartupFailure(log, error, { ...env, GATEWAY_PORT: env.GATEWAY_PORT ?? appPort }),
  );
reportListening();
const stop = async () => {
  exitByDeadline(log, env.SHUTDOWN_TIMEOUT_MS);
  await app.close();
  await stopTracing?.().catch(() => {});
  process.exit(0);
};
stopOnSignals(() => void stop());
