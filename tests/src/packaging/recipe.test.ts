import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AUTH_PREFIXES, RESOURCE_PREFIXES } from '@beckon/server/http/gateway';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_DIR, SERVER_DEPLOY } from './tools';

/**
 * The deployment recipe (Dockerfile, compose.yaml, deploy/Caddyfile) runs what the tests run:
 * the same deploy step as deploy.test.ts and only production scripts of package.json. The images
 * cannot be built here (no image registry), so this reads the files.
 */
const read = (file: string) => readFile(path.join(REPO_DIR, file), 'utf8');
const scripts: Record<string, string> = JSON.parse(await read('package.json')).scripts;
const scriptFor = (command: string[]) =>
  Object.entries(scripts).find(([, body]) => body === command.join(' '))?.[0];

type Service = {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  deploy?: { replicas?: number };
};

describe('the deployment recipe', () => {
  it('builds the image with the tested deploy step and runs a production script as a non-root user', async () => {
    const dockerfile = await read('Dockerfile');
    expect(dockerfile).toContain(`pnpm ${SERVER_DEPLOY.join(' ')} /app/server`);
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(scriptFor(JSON.parse(cmd ?? '[]'))).toBe('start:resource');
    const users = [...dockerfile.matchAll(/^USER (\S+)$/gm)].map((match) => match[1]);
    expect(users.at(-1)).toBe('node');
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*\/ready/m);
  });

  it('runs every Beckon process of compose.yaml through a production script, resource processes replicated', async () => {
    const compose = parse(await read('compose.yaml'), { merge: true }) as {
      services: Record<string, Service>;
    };
    const beckon = Object.entries(compose.services).filter(([, service]) => service.image === 'beckon');
    const byScript = Object.fromEntries(
      beckon.map(([name, service]) => [scriptFor(service.command ?? []) ?? `${name}: no script`, service]),
    );
    expect(Object.keys(byScript).sort()).toEqual(
      ['db:migrate', 'start:auth', 'start:gateway', 'start:resource', 'worker'].sort(),
    );
    expect(byScript['start:resource']?.deploy?.replicas).toBeGreaterThanOrEqual(2);
    // The worker runs apart: no resource process runs jobs too.
    for (const [, service] of beckon) expect(service.environment?.RUN_WORKER).toBe('false');
  });

  it('installs the dependencies from the lockfile before it copies the sources', async () => {
    const dockerfile = await read('Dockerfile');
    const at = (pattern: RegExp) => dockerfile.search(pattern);
    expect(at(/^COPY pnpm-lock\.yaml /m)).toBeGreaterThan(-1);
    expect(at(/^RUN pnpm fetch$/m)).toBeGreaterThan(at(/^COPY pnpm-lock\.yaml /m));
    expect(at(/^COPY \. \.$/m)).toBeGreaterThan(at(/^RUN pnpm fetch$/m));
    expect(dockerfile).toContain('pnpm install --frozen-lockfile --offline');
  });

  it('serves HTTPS as docs/deployment.md says: the router publishes 80 and 443 and keeps its certificates', async () => {
    const compose = parse(await read('compose.yaml'), { merge: true }) as {
      services: Record<string, { ports?: string[]; volumes?: string[] }>;
    };
    const router = compose.services.router;
    expect(router?.ports).toEqual(expect.arrayContaining(['80:80', '443:443']));
    expect(router?.volumes).toContain('caddy-data:/data');
    expect(await read('docs/deployment.md')).toMatch(/ports 80 and 443/);
  });

  it('states one honest Node range: graphile-worker needs 22.18', async () => {
    const worker = JSON.parse(await read('server/node_modules/graphile-worker/package.json')) as {
      engines: { node: string };
    };
    expect(worker.engines.node).toBe('>=22.18.0');
    for (const manifest of ['package.json', 'sdk/package.json', 'mcp/package.json', 'server/package.json']) {
      const engines = (JSON.parse(await read(manifest)) as { engines?: { node?: string } }).engines;
      if (engines?.node) expect(engines.node, manifest).toBe('>=22.18');
    }
  });

  it('routes the same paths as the gateway of `pnpm start`', async () => {
    const caddyfile = await read('deploy/Caddyfile');
    const matcher = (name: string) =>
      new RegExp(`^\\s*@${name} path (.*)$`, 'm').exec(caddyfile)?.[1]?.split(' ');
    for (const prefix of AUTH_PREFIXES) expect(matcher('auth')).toContain(`${prefix}/*`);
    for (const prefix of RESOURCE_PREFIXES) expect(matcher('resource')).toContain(prefix);
    expect(matcher('dashboard')).toEqual(['/auth/callback']);
  });
});
