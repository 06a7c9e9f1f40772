// Longer than 300 lines: the outbound client's refusals, limits and timeouts, each a case against a local server; splitting them would repeat the servers.
import { createHmac } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isForbiddenAddress, postJson } from './outbound';
import { signDelivery, verifySignature } from './sign';

type Recorded = { method: string; path: string; headers: IncomingHttpHeaders; body: string };
type TestServer = { origin: string; port: number; requests: Recorded[]; close: () => Promise<void> };

/** A local server that records every request in full before letting `respond` answer (or not). */
async function startServer(
  respond: (req: IncomingMessage, res: ServerResponse) => void,
  host = '127.0.0.1',
): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      respond(req, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return {
    origin: `http://${hostInUrl}:${address.port}`,
    port: address.port,
    requests,
    close: async () => {
      // Hanging requests and kept-alive sockets would otherwise hold close() open.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const SECRET = 'test-secret-ünïcode';
const allowPrivate = { allowPrivate: true };
const publicOnly = { allowPrivate: false, timeoutMs: 2_000 };

let main: TestServer;
let redirectTarget: TestServer;
let victim: TestServer;
let victimIPv6: TestServer | null = null;

beforeAll(async () => {
  redirectTarget = await startServer((_req, res) => res.writeHead(200).end());
  victim = await startServer((_req, res) => res.writeHead(200).end());
  victimIPv6 = await startServer((_req, res) => res.writeHead(200).end(), '::1').catch(() => null);
  main = await startServer((req, res) => {
    switch (req.url) {
      case '/ok':
        return res.writeHead(200, { 'retry-after': '5' }).end('thanks');
      case '/no-content':
        return res.writeHead(204).end();
      case '/fail':
        return res.writeHead(500).end('boom');
      case '/busy':
        return res.writeHead(429, { 'retry-after': '7' }).end();
      case '/unavailable':
        return res.writeHead(503, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() }).end();
      case '/redirect':
        return res.writeHead(302, { location: `${redirectTarget.origin}/landed` }).end();
      case '/huge':
        return res.writeHead(200).end(Buffer.alloc(4 * 1024 * 1024, 'x'));
      case '/hang':
        return; // never answers
      case '/hang-body':
        return res.writeHead(200).write('{"partial":'); // headers, then never the rest
      case '/reset-body':
        res.writeHead(200).write('{"partial":');
        return setTimeout(() => res.socket?.destroy(), 50); // headers, then the connection breaks
      default:
        return res.writeHead(404).end();
    }
  });
});

afterAll(async () => {
  await Promise.all([main, redirectTarget, victim, victimIPv6].map((server) => server?.close()));
});

describe('postJson', () => {
  it('posts the exact body with signed headers that verify independently', async () => {
    const body = JSON.stringify({ answer: 'ja ✓', n: 1 });
    const timestamp = new Date('2025-01-02T03:04:05.678Z');
    const signed = signDelivery({ secret: SECRET, body, deliveryId: 'dlv_123', timestamp });

    const result = await postJson(`${main.origin}/ok`, body, signed, allowPrivate);

    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    expect(main.requests).toHaveLength(1);
    const received = main.requests.at(-1)!;
    expect(received.method).toBe('POST');
    expect(received.path).toBe('/ok');
    expect(received.body).toBe(body);
    expect(received.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Beckon-Webhooks/1.0',
      'content-length': String(Buffer.byteLength(body)),
      'x-service-delivery': 'dlv_123',
      'webhook-id': 'dlv_123',
      'webhook-timestamp': '1735787045',
    });
    const hex = createHmac('sha256', SECRET).update(Buffer.from(received.body, 'utf8')).digest('hex');
    expect(received.headers['x-service-signature']).toBe(`sha256=${hex}`);
    const standard = createHmac('sha256', Buffer.from(SECRET, 'utf8'))
      .update(`dlv_123.1735787045.${received.body}`)
      .digest('base64');
    expect(received.headers['webhook-signature']).toBe(`v1,${standard}`);
  });

  it('is ok for 2xx, and ignores Retry-After outside 429/503', async () => {
    expect(await postJson(`${main.origin}/ok`, '{}', {}, allowPrivate)).toMatchObject({
      ok: true,
      status: 200,
      retryAfterSeconds: null,
      error: null,
    });
    expect(await postJson(`${main.origin}/no-content`, '{}', {}, allowPrivate)).toMatchObject({
      ok: true,
      status: 204,
    });
  });

  it('resolves host names when private destinations are allowed', async () => {
    const result = await postJson(`http://localhost:${main.port}/ok`, '{}', {}, allowPrivate);
    expect(result).toMatchObject({ ok: true, status: 200 });
  });

  it('reports a 500 as not ok with its status', async () => {
    const result = await postJson(`${main.origin}/fail`, '{}', {}, allowPrivate);
    expect(result).toMatchObject({ ok: false, status: 500, retryAfterSeconds: null, error: null });
  });

  it('reads Retry-After seconds from a 429', async () => {
    const result = await postJson(`${main.origin}/busy`, '{}', {}, allowPrivate);
    expect(result).toMatchObject({ ok: false, status: 429, retryAfterSeconds: 7, error: null });
  });

  it('reads a Retry-After HTTP date from a 503', async () => {
    const result = await postJson(`${main.origin}/unavailable`, '{}', {}, allowPrivate);
    expect(result).toMatchObject({ ok: false, status: 503 });
    expect(result.retryAfterSeconds).toBeGreaterThanOrEqual(55);
    expect(result.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it('does not follow redirects', async () => {
    const result = await postJson(`${main.origin}/redirect`, '{}', {}, allowPrivate);
    expect(result).toMatchObject({ ok: false, status: 302, error: null });
    expect(redirectTarget.requests).toHaveLength(0);
  });

  it('stops reading a huge response body', async () => {
    const result = await postJson(`${main.origin}/huge`, '{}', {}, allowPrivate);
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
  });

  it('times out a server that never answers', async () => {
    const result = await postJson(`${main.origin}/hang`, '{}', {}, { allowPrivate: true, timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('times out a body that never ends, with the status it had', async () => {
    const result = await postJson(
      `${main.origin}/hang-body`,
      '{}',
      {},
      { allowPrivate: true, timeoutMs: 300 },
    );
    expect(result).toMatchObject({ ok: false, status: 200, error: 'timeout' });
  });

  it('counts a 2xx as delivered when the connection breaks in its body', async () => {
    const result = await postJson(`${main.origin}/reset-body`, '{}', {}, allowPrivate);
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
  });

  it("ends the request when the caller's signal aborts (the worker stopping)", async () => {
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 100);
    const result = await postJson(
      `${main.origin}/hang`,
      '{}',
      {},
      { allowPrivate: true, signal: caller.signal },
    );
    expect(result).toMatchObject({ ok: false, status: null, error: 'aborted' });
    expect(result.durationMs).toBeLessThan(5_000);
    const already = await postJson(
      `${main.origin}/ok`,
      '{}',
      {},
      { allowPrivate: true, signal: caller.signal },
    );
    expect(already).toMatchObject({ ok: false, error: 'aborted' });
  });

  it('reports a refused connection without throwing', async () => {
    const closed = await startServer((_req, res) => res.end());
    await closed.close();
    const result = await postJson(`${closed.origin}/`, '{}', {}, allowPrivate);
    expect(result.ok).toBe(false);
    expect(result.status).toBeNull();
    expect(result.error).toBe('connection refused (ECONNREFUSED)');
  });

  describe('refuses private destinations unless allowed', () => {
    const loopbackCases: Array<[string, () => string]> = [
      ['an IPv4 loopback literal', () => `http://127.0.0.1:${victim.port}/`],
      ['a name resolving to loopback', () => `http://localhost:${victim.port}/`],
    ];
    it.each(loopbackCases)('%s', async (_name, url) => {
      const result = await postJson(url(), '{}', {}, publicOnly);
      expect(result.ok).toBe(false);
      expect(result.status).toBeNull();
      expect(result.error).toBe('destination not allowed: private or reserved address');
      expect(victim.requests).toHaveLength(0);
    });

    it('an IPv6 loopback literal', async (context) => {
      if (!victimIPv6) context.skip('IPv6 loopback is unavailable here');
      const server = victimIPv6!;
      const result = await postJson(`${server.origin}/`, '{}', {}, publicOnly);
      expect(result).toMatchObject({
        ok: false,
        status: null,
        error: 'destination not allowed: private or reserved address',
      });
      expect(server.requests).toHaveLength(0);
    });

    // Refused before any connection attempt: these tests never send traffic off this machine.
    it.each([
      ['http://10.0.0.1/', '10.0.0.1'],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
      ['https://[::ffff:10.0.0.1]/', '::ffff:a00:1'],
    ])('%s', async (url, address) => {
      // The stored error never says what the address was.
      let socketsOpened = 0;
      const countSocket = () => {
        socketsOpened += 1;
      };
      // Node announces every outgoing TCP socket on this channel.
      diagnostics.subscribe('net.client.socket', countSocket);
      try {
        const result = await postJson(url, '{}', {}, publicOnly);
        expect(result).toMatchObject({
          ok: false,
          status: null,
          error: 'destination not allowed: private or reserved address',
        });
        expect(result.error).not.toContain(address);
        expect(result.durationMs).toBeLessThan(1_000);
      } finally {
        diagnostics.unsubscribe('net.client.socket', countSocket);
      }
      expect(socketsOpened).toBe(0);
    });
  });

  it.each([
    ['ftp://example.com/hook', 'unsupported URL scheme'],
    ['file:///etc/passwd', 'unsupported URL scheme'],
    ['not a url', 'invalid URL'],
  ])('rejects %s without connecting', async (url, error) => {
    expect(await postJson(url, '{}', {}, allowPrivate)).toMatchObject({ ok: false, status: null, error });
  });
});

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    '100.64.0.1',
    '100.127.255.255',
    '224.0.0.251',
    '255.255.255.255',
    '::1',
    '::',
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    'fe80::1%eth0',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::7f00:1',
    '64:ff9b:1::a00:1',
    '2002:7f00:1::1',
    '192.0.0.8',
    '198.18.0.1',
    'localhost',
    '',
  ])('refuses %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '2606:2800:220:1:248:1893:25c8:1946',
    '::ffff:93.184.216.34',
  ])('allows %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});

describe('signatures', () => {
  const body = '{"a":1}';
  const headers = signDelivery({
    secret: SECRET,
    body,
    deliveryId: 'd1',
    timestamp: new Date(1_700_000_000_999),
  });

  it('uses whole unix seconds and the delivery id', () => {
    expect(headers['webhook-timestamp']).toBe('1700000000');
    expect(headers['webhook-id']).toBe('d1');
    expect(headers['x-service-delivery']).toBe('d1');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('verifies only the exact body, secret and signature', () => {
    const header = headers['x-service-signature'];
    expect(verifySignature(SECRET, body, header)).toBe(true);
    expect(verifySignature(SECRET, '{"a":2}', header)).toBe(false);
    expect(verifySignature('other-secret', body, header)).toBe(false);
    expect(verifySignature(SECRET, body, `${header}0`)).toBe(false);
    expect(verifySignature(SECRET, body, undefined)).toBe(false);
  });
});
