import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Factories, startTestServer, type TestServer } from '../harness';
import {
  attribute,
  CLIENT,
  INTERNAL,
  type OtlpCollector,
  type OtlpSpan,
  SERVER,
  startOtlpCollector,
} from '../harness/otlp';
import { openEventStream } from '../harness/sse';

/**
 * The spans of the dashboard's tRPC calls and of the long-lived requests (docs/architecture.md,
 * "Tracing"). No identity cache, and heartbeats every 100 ms: each heartbeat of a stream asks
 * the database whether its credential still holds.
 */
let collector: OtlpCollector;
let server: TestServer;

beforeAll(async () => {
  collector = await startOtlpCollector();
  server = await startTestServer({ env: { IDENTITY_CACHE: 'false', STREAM_HEARTBEAT_MS: '100' } });
});
afterAll(async () => {
  await server?.close();
  await collector?.close();
});

const until = async (done: () => boolean) => {
  for (const deadline = Date.now() + 10_000; !done(); ) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/**
 * The spans of `traceId` that started after `span` ended. A request of another trace is traced
 * and its span awaited first: whatever ended before it (the heartbeats' queries) is exported.
 */
async function startedAfter(traceId: string, span: OtlpSpan, token: string) {
  const marker = '5e1dc0ffee0ddba11dec0de5ca1ab1e0';
  const answered = await fetch(`${server.resource.baseUrl}/api/items`, {
    headers: { authorization: `Bearer ${token}`, traceparent: `00-${marker}-5e1dc0ffee0ddba1-01` },
  });
  expect(answered.status).toBe(200);
  await collector.spansOf(marker, (all) => all.some((s) => s.kind === SERVER));
  return collector
    .spans()
    .filter((s) => s.traceId === traceId && BigInt(s.startTimeUnixNano) > BigInt(span.endTimeUnixNano));
}

describe('tracing of tRPC calls and streams', () => {
  it('makes a span of each call of a tRPC batch, under the request its traceparent continues', async () => {
    const account = await new Factories(server.database.db).account('owner');
    const traceId = '7d3e5b1a9c4f2e8d6b0a1c3e5f7a9b2d';
    const calls = 'identity.whoAmI,items.list,items.get';
    const input = encodeURIComponent(
      JSON.stringify({ 1: { status: 'open' }, 2: { id: '00000000-0000-4000-8000-000000000000' } }),
    );
    const answered = await fetch(`${server.resource.baseUrl}/trpc/${calls}?batch=1&input=${input}`, {
      headers: { authorization: `Bearer ${account.token}`, traceparent: `00-${traceId}-1c3e5f7a9b2d7d3e-01` },
    });
    const answers = (await answered.json()) as Array<{ result?: unknown; error?: unknown }>;
    expect(answers.map((answer) => 'result' in answer)).toEqual([true, true, false]);

    const spans = await collector.spansOf(traceId, (all) => all.some((span) => span.kind === SERVER));
    const request = spans.find((span) => span.kind === SERVER);
    expect(request).toMatchObject({ name: 'GET /trpc/:path', parentSpanId: '1c3e5f7a9b2d7d3e' });
    expect(attribute(request!, 'beckon.procedures')).toEqual({
      values: calls.split(',').map((call) => ({ stringValue: call })),
    });
    const procedures = spans.filter((span) => span.kind === INTERNAL);
    expect(procedures.map((span) => span.name).sort()).toEqual([
      'procedure identity.whoAmI',
      'procedure items.get',
      'procedure items.list',
    ]);
    expect(procedures.every((span) => span.parentSpanId === request!.spanId)).toBe(true);
    const get = procedures.find((span) => span.name === 'procedure items.get')!;
    expect(attribute(get, 'beckon.error_code')).toBe('not_found');
    expect(attribute(get, 'rpc.method')).toBe('items.get');
    // Each call's queries are under its own span.
    const list = procedures.find((span) => span.name === 'procedure items.list')!;
    const queries = spans.filter((span) => span.kind === CLIENT && span.parentSpanId === list.spanId);
    expect(queries.some((span) => String(attribute(span, 'db.query.text')).includes('from items'))).toBe(
      true,
    );
  });

  it("ends an event stream's span once it is open; its heartbeats and events join no trace", async () => {
    const account = await new Factories(server.database.db).account('owner');
    const traceId = '2b9d4f6a8c0e1a3c5e7f9b1d3f5a7c9e';
    const stream = await openEventStream(`${server.resource.baseUrl}/mcp/sse`, {
      authorization: `Bearer ${account.token}`,
      traceparent: `00-${traceId}-9b1d3f5a7c9e2b9d-01`,
    });
    expect(stream.status).toBe(200);
    // Exported while the stream is still open.
    const spans = await collector.spansOf(traceId, (all) => all.some((span) => span.kind === SERVER));
    const opened = spans.find((span) => span.kind === SERVER)!;
    expect(opened).toMatchObject({ name: 'GET /mcp/sse', parentSpanId: '9b1d3f5a7c9e2b9d' });
    expect(attribute(opened, 'beckon.stream')).toBe(true);
    expect(attribute(opened, 'http.response.status_code')).toBe(200);
    // Its credential is checked before it opens: that query is in its trace.
    expect(spans.some((span) => span.kind === CLIENT && span.parentSpanId === opened.spanId)).toBe(true);

    // Heartbeats (each re-reads the credential) and an event of another request go by.
    const created = await server.resource.as(account.token).post<{ id: string }>('/api/items', {
      title: 'Streamed',
    });
    await stream.until((events) => events.some((event) => event.data.includes(created.body.id)));
    await until(() => stream.comments.filter((comment) => comment === 'keep-alive').length >= 3);
    expect(await startedAfter(traceId, opened, account.token)).toEqual([]);
    stream.close();
  });

  it("ends a WebSocket's span at the upgrade; its checks and pings join no trace", async () => {
    const account = await new Factories(server.database.db).account('owner');
    const traceId = '6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e';
    const socket = new WebSocket(`${server.resource.baseUrl.replace('http', 'ws')}/api/ws`, {
      headers: { traceparent: `00-${traceId}-0c2e4b6d8f0a2c4e-01` },
    });
    let pings = 0;
    let ready = false;
    socket.on('ping', () => pings++);
    socket.on('message', (raw) => {
      if ((JSON.parse(raw.toString()) as { type: string }).type === 'ready') ready = true;
    });
    socket.on('open', () => socket.send(JSON.stringify({ type: 'auth', token: account.token })));
    try {
      await until(() => ready && pings >= 3);
      const spans = await collector.spansOf(traceId, (all) => all.some((span) => span.kind === SERVER));
      const upgraded = spans.find((span) => span.kind === SERVER)!;
      expect(upgraded).toMatchObject({ name: 'GET /api/ws', parentSpanId: '0c2e4b6d8f0a2c4e' });
      expect(attribute(upgraded, 'http.response.status_code')).toBe(101);
      expect(await startedAfter(traceId, upgraded, account.token)).toEqual([]);
    } finally {
      socket.close();
    }
  });
});
