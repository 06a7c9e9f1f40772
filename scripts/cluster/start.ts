import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { loadEnv } from '@beckon/server/env';
import { buildGateway } from '@beckon/server/http/gateway';
import { createLogger } from '@beckon/server/log';
import { runScript, runScriptToEnd, type ScriptProcess, untilHealthy } from './processes';

export type ClusterOptions = {
  /** The PostgreSQL every process shares (migrated here with `db:migrate`). */
  databaseUrl: string;
  resources?: number;
  workers?: number;
  /** Port of the router (0: any free one). */
  routerPort?: number;
  host?: string;
  /** Settings every process gets (LOG_LEVEL, NODE_ENV, OAUTH_SIGNING_KEY, SMTP_HOST ...). */
  env?: Record<string, string>;
  /** Each process's output, line by line. */
  onOutput?: (name: string, line: string) => void;
};

export type Served = { name: string; url: string; run: ScriptProcess };

export type Cluster = {
  /** The router: one origin in front of everything (the dashboard too, when it is built). */
  url: string;
  auth: Served;
  resources: Served[];
  workers: Array<{ name: string; run: ScriptProcess }>;
  router: Awaited<ReturnType<typeof buildGateway>>;
  stop: () => Promise<void>;
};

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
    server.on('error', reject);
  });

/**
 * Several processes on one database, as a deployment runs them: `db:migrate` once, then the
 * authorization process (`start:auth`), `resources` resource processes (`start:resource`, each
 * with RUN_WORKER=false) and `workers` job workers (`worker`), each its own OS process running
 * the compiled build (`pnpm build` first); and the
 * gateway (http/gateway.ts) in this process as the router, taking the resource processes in turn.
 * `pnpm cluster` and tests/src/deployment/multi-process.test.ts both start it.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const host = options.host ?? '127.0.0.1';
  const started: ScriptProcess[] = [];
  const common = { HOST: host, DATABASE_URL: options.databaseUrl, ...options.env };
  const launch = (name: string, script: string, env: Record<string, string>) => {
    const run = runScript(script, { ...common, ...env });
    started.push(run);
    forwardLines(run, name, options.onOutput);
    return run;
  };
  const stopAll = () => Promise.all(started.map((run) => run.stop())).then(() => {});
  try {
    await runScriptToEnd('db:migrate', common);
    const authPort = await freePort();
    const auth = { name: 'auth', url: `http://${host}:${authPort}` } as Served;
    auth.run = launch('auth', 'start:auth', { AUTH_PORT: String(authPort) });
    const resources: Served[] = [];
    for (let i = 1; i <= (options.resources ?? 2); i++) {
      const port = await freePort();
      const name = `resource-${i}`;
      const run = launch(name, 'start:resource', {
        PORT: String(port),
        AUTH_PORT: String(authPort),
        RUN_WORKER: 'false',
      });
      resources.push({ name, url: `http://${host}:${port}`, run });
    }
    const workers = Array.from({ length: options.workers ?? 1 }, (_, i) => {
      const name = `worker-${i + 1}`;
      return { name, run: launch(name, 'worker', {}) };
    });
    await Promise.all([auth, ...resources].map((p) => untilHealthy(`${p.url}/health`, p.run)));

    const log = createLogger(loadEnv({ ...process.env, ...common }), 'beckon-router');
    const router = await buildGateway(
      log,
      { resource: resources.map((r) => r.url), auth: auth.url },
      fileURLToPath(new URL('../../web/dist', import.meta.url)),
    );
    const url = await router.listen({ host, port: options.routerPort ?? 0 });
    const stop = async () => {
      await router.close();
      await stopAll();
    };
    return { url, auth, resources, workers, router, stop };
  } catch (error) {
    for (const run of started) run.kill();
    throw error;
  }
}

function forwardLines(run: ScriptProcess, name: string, onOutput: ClusterOptions['onOutput']) {
  if (!onOutput) return;
  for (const stream of [run.child.stdout, run.child.stderr]) {
    let rest = '';
    stream?.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) onOutput(name, line);
    });
  }
}
