import { createServer } from 'node:net';

/**
 * Ports handed out for processes a test starts itself (its own PostgreSQL, resource processes):
 * below the kernel's ephemeral range (32768 and up, where every `listen(0)` lands), in a block of
 * 500 per vitest worker (VITEST_POOL_ID; 0 for the main process and scripts), counted up within
 * a process. The blocks start at TEST_PORT_BASE (20000), so two checkouts testing at once on one
 * machine can be given ranges apart (each uses 2,000 ports). Two test files running side by side so never pick the same port between one asking
 * and its child binding it (with `listen(0)`-and-close, they could: a resource process then found
 * another file's server answering its /health).
 */
const base = Number(process.env.TEST_PORT_BASE ?? 20_000);
const slot = Number(process.env.VITEST_POOL_ID ?? 0) % 4;
let next = 0;

/** A TCP port that is free on 127.0.0.1 right now and that no other test worker will pick. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 500; tries++) {
    const port = base + slot * 500 + (next++ % 500);
    if (await isFree(port)) return port;
  }
  throw new Error('no free port in this worker block');
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
