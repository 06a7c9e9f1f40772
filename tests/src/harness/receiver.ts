import { createServer, type IncomingHttpHeaders } from 'node:http';

export type Received = {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (ms since the epoch). */
  at: number;
};

/**
 * A real local HTTP receiver for callbacks and webhooks. `respond` picks the status of each
 * request (default 200); every request is recorded. With `delayMs`, each answer waits that long
 * (deliveries stay in flight, as the fault tests need).
 */
export async function startReceiver(
  respond: (request: Received, index: number) => number = () => 200,
  { delayMs = 0 } = {},
) {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        at: Date.now(),
      };
      received.push(request);
      res.statusCode = respond(request, received.length - 1);
      if (delayMs > 0) setTimeout(() => res.end(), delayMs);
      else res.end();
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    /** Resolves once `count` requests have arrived (fails after `timeoutMs`). */
    async waitFor(count: number, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Receivers a test file starts as it goes, all closed by `closeAll` (in afterAll). */
export function receiverPool() {
  const started: Array<{ close: () => Promise<void> }> = [];
  return {
    async start(respond?: Parameters<typeof startReceiver>[0]) {
      const receiver = await startReceiver(respond);
      started.push(receiver);
      return receiver;
    },
    closeAll: async () => {
      for (const receiver of started) await receiver.close();
    },
  };
}
