// `pnpm dev`: the authorization and resource processes (server/src/main.ts without its gateway)
// and Vite's dev server in front of them with the gateway's routing (vite.config.ts).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(web, '..');

// The MCP App's script, which the server reads from server/dist (server/build-answer-app.mjs).
execFileSync(process.execPath, ['server/build-answer-app.mjs'], { cwd: root, stdio: 'inherit' });
const server: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
  cwd: root,
  env: { ...process.env, WEB_GATEWAY: 'false' },
  stdio: 'inherit',
});

const vite = await createServer({ root: web, configFile: path.join(web, 'vite.config.ts') });
await vite.listen();
vite.printUrls();

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  await vite.close();
  if (server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  process.exit(code);
}

server.once('exit', (code) => {
  if (!stopping) void stop(code ?? 1);
});
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));
