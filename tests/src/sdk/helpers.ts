import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Form } from '@beckon/sdk';

export const yesNoForm: Form = { id: 'deploy', fields: [{ id: 'ok', type: 'yesno', label: 'Deploy?' }] };

export const until = async (check: () => Promise<boolean> | boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** What the proxy does with one request: forward it, drop the connection after forwarding, or 502. */
export type ProxyFault = 'pass' | 'drop-response' | 'bad-gateway';
export type ProxiedRequest = { method: string; path: string; headers: IncomingMessage['headers'] };

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * A real HTTP proxy in front of the resource process that misbehaves on demand: `decide` sees each
 * request and how many times its path was seen before (0 the first time).
 */
export async function startFaultyProxy(
  target: string,
  decide: (path: string, seenBefore: number) => ProxyFault,
) {
  const seen = new Map<string, number>();
  const requests: ProxiedRequest[] = [];
  const server = createServer(async (req, res) => {
    const path = req.url ?? '/';
    const key = path.split('?')[0] ?? path;
    const count = seen.get(key) ?? 0;
    seen.set(key, count + 1);
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers });
    const fault = decide(key, count);
    if (fault === 'bad-gateway') {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502 Bad Gateway</h1>');
      return;
    }
    const body = await readBody(req);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
        headers[name] = value;
    }
    const upstream = await fetch(`${target}${path}`, {
      method: req.method,
      headers,
      body: body.length ? body : undefined,
    });
    const answer = Buffer.from(await upstream.arrayBuffer());
    // The server did the work; the client never hears about it.
    if (fault === 'drop-response') return void req.socket.destroy();
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' });
    res.end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
