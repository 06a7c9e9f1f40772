// The dashboard's production bundle: what a first visit downloads (index.html's own scripts,
// module preloads and styles), gzip-compressed as a server would send it, and the chunks that load
// later (item page, agents page).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'web', 'dist');

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const gzipped = (file: string) => gzipSync(readFileSync(path.join(dist, file)), { level: 9 }).length;

export function dashboardBundle(): string[] {
  const build = spawnSync('pnpm', ['--filter', '@beckon/web', 'build'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (build.status !== 0) throw new Error(`dashboard build failed:\n${build.stdout}\n${build.stderr}`);
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  const firstLoad = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  const firstJs = firstLoad.filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gzipped(f), 0);
  const firstCss = firstLoad.filter((f) => f.endsWith('.css')).reduce((sum, f) => sum + gzipped(f), 0);
  const later = readdirSync(path.join(dist, 'assets'))
    .map((f) => `assets/${f}`)
    .filter((f) => f.endsWith('.js') && !firstLoad.includes(f));
  return [
    `dashboard first load: JS ${kb(firstJs)} gzip (target < 250 KB), CSS ${kb(firstCss)} gzip`,
    ...later.map((f) => `dashboard chunk loaded on demand: ${path.basename(f)} ${kb(gzipped(f))} gzip`),
  ];
}
