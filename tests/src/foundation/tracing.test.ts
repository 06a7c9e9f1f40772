import { buildGateway } from '@beckon/server/http/gateway';
import { logMixin } from '@beckon/server/log';
import { requestContext } from '@beckon/server/request-context';
import { tracer } from '@beckon/server/tracing/tracing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, MCP_ACCEPT, startReceiver, startTestServer, type TestServer } from '../harness';
import {
  attribute,
  CLIENT,
  CONSUMER,
  INTERNAL,
  type OtlpCollector,
  type OtlpSpan,
  parentIdOf,
  SERVER,
  startOtlpCollector,
  traceIdOf,
} from '../harness/otlp';

const FORM = { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?', required: true }] };

let collector: OtlpCollector;
let server: TestServer;

beforeAll(async () => {
  collector = await startOtlpCollector();
  server = await startTestServer({ worker: true });
});
afterAll(async () => {
  await server?.close();
  await collector?.close();
});

const spansOf = (traceId: string, done: (spans: OtlpSpan[]) => boolean) => collector.spansOf(traceId, done);

describe('tracing over OTLP', () => {
  it('follows a REST request through its queries, its jobs and the callback it causes', async () => {
    const account = await new Factories(server.database.db).account('owner');
    const hook = await startReceiver();
    try {
      const traceId = '0af7651916cd43dd8448eb211c80319c';
      const traceparent = `00-${traceId}-b7ad6b7169203331-01`;
      const client = server.resource.as(account.token);
      const webhook = { name: 'traced', url: `${hook.url}/wh`, events: ['item.created'] };
      expect((await client.post('/api/webhooks', webhook)).status).toBe(201);
      // The deadline's expiry is a job of the creating request; the callback a job of that one.
      const created = await client.post<{ id: string }>(
        '/api/items',
        {
          title: 'Traced',
          form: FORM,
          callback_url: `${hook.url}/cb`,
          deadline_at: new Date(Date.now() + 1500).toISOString(),
        },
        { headers: { traceparent } },
      );
      expect(created.status).toBe(201);
      const received = await hook.waitFor(2);
      const callback = received.find((r) => r.url === '/cb');
      expect(JSON.parse(callback!.body)).toMatchObject({ item_id: created.body.id, status: 'expired' });
      // The webhook of the creation carries the same trace.
      const delivered = received.find((r) => r.url === '/wh');
      expect(JSON.parse(delivered!.body)).toMatchObject({ type: 'item.created' });
      expect(traceIdOf(delivered!.headers.traceparent)).toBe(traceId);
      expect(traceIdOf(callback!.headers.traceparent)).toBe(traceId);

      const outboundId = parentIdOf(callback!.headers.traceparent);
      const spans = await spansOf(traceId, (all) =>
        [outboundId, 'job expire_item', 'job deliver_callback', 'POST /api/items'].every((wanted) =>
          all.some((span) => span.spanId === wanted || span.name === wanted),
        ),
      );
      const request = spans.find((span) => span.name === 'POST /api/items');
      expect(request).toMatchObject({ kind: SERVER, parentSpanId: 'b7ad6b7169203331' });
      expect(attribute(request!, 'http.response.status_code')).toBe(201);
      const insert = spans.find(
        (span) =>
          attribute(span, 'db.system.name') === 'postgresql' &&
          String(attribute(span, 'db.query.text')).includes('insert into items'),
      );
      // Named by its statement's first word (this one is `with ... insert`).
      expect(insert).toMatchObject({ kind: CLIENT, name: 'WITH' });
      // Statement text only: the values are never on a span.
      expect(JSON.stringify(spans)).not.toContain('Traced');
      const expiry = spans.find((span) => span.name === 'job expire_item');
      const delivery = spans.find((span) => span.name === 'job deliver_callback');
      expect(expiry).toMatchObject({ kind: CONSUMER });
      expect(delivery).toMatchObject({ kind: CONSUMER });
      expect(spans.map((span) => span.spanId)).toContain(expiry!.parentSpanId);
      const outbound = spans.find((span) => span.spanId === outboundId);
      expect(outbound).toMatchObject({ kind: CLIENT, name: 'POST', parentSpanId: delivery!.spanId });
      expect(attribute(outbound!, 'url.full')).toBe(`${hook.url}/cb`);
    } finally {
      await hook.close();
    }
  });

  it('carries the trace from the gateway to the process it forwards to', async () => {
    const log = pino({ level: 'silent' });
    const upstreams = { resource: server.resource.baseUrl, auth: server.auth.baseUrl };
    const gateway = await buildGateway(log, upstreams, '/nonexistent-dashboard');
    try {
      const traceId = 'a3ce929d0e0e47364bf92f3577b34da6';
      const answered = await gateway.inject({
        url: '/api/me',
        headers: { traceparent: `00-${traceId}-a3ce929d0e0e4736-01` },
      });
      expect(answered.statusCode).toBe(401);
      const spans = await spansOf(traceId, (all) => all.filter((span) => span.kind === SERVER).length >= 2);
      const edge = spans.find((span) => span.kind === SERVER && span.parentSpanId === 'a3ce929d0e0e4736');
      const forwarded = spans.find((span) => span.kind === CLIENT && span.parentSpanId === edge?.spanId);
      const served = spans.find(
        (span) => span.name === 'GET /api/me' && span.parentSpanId === forwarded?.spanId,
      );
      expect(edge).toBeDefined();
      expect(forwarded).toBeDefined();
      expect(attribute(served!, 'http.response.status_code')).toBe(401);
    } finally {
      await gateway.close();
    }
  });

  it('continues the trace of an MCP call from _meta.traceparent, up to its item callback', async () => {
    const f = new Factories(server.database.db);
    const account = await f.account('owner');
    const key = await f.apiKey(account.org.id, account.user.id);
    const hook = await startReceiver();
    try {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;
      const response = await fetch(`${server.resource.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key.token}`,
          'content-type': 'application/json',
          accept: MCP_ACCEPT,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'service_ask',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'service_ask',
            arguments: { title: 'Traced over MCP', form: FORM, callback_url: `${hook.url}/cb` },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'beckon-test', version: '1.0.0' },
              'io.modelcontextprotocol/clientCapabilities': {},
              traceparent,
              tracestate: 'vendor=1',
            },
          },
        }),
      });
      const answer = (await response.json()) as { result: { structuredContent: { id: string } } };
      const itemId = answer.result.structuredContent.id;
      // Answered by a person, in a request of another trace: the callback still joins the agent's.
      const person = server.resource.as(account.token);
      expect((await person.post(`/api/items/${itemId}/answer`, { values: { ok: true } })).status).toBe(200);
      const [callback] = await hook.waitFor(1);
      expect(traceIdOf(callback!.headers.traceparent)).toBe(traceId);
      expect(callback!.headers.tracestate).toBe('vendor=1');

      const outboundId = parentIdOf(callback!.headers.traceparent);
      const spans = await spansOf(traceId, (all) => all.some((span) => span.spanId === outboundId));
      const call = spans.find((span) => span.name === 'mcp tools/call');
      expect(call).toMatchObject({ kind: SERVER, parentSpanId: '00f067aa0ba902b7' });
      // The tool's procedure runs under the call, and its queries under the procedure.
      const procedure = spans.find((span) => span.parentSpanId === call!.spanId && span.kind === INTERNAL);
      expect(procedure?.name).toMatch(/^procedure /);
      expect(
        spans.some(
          (span) =>
            span.parentSpanId === procedure!.spanId && attribute(span, 'db.system.name') === 'postgresql',
        ),
      ).toBe(true);
      expect(spans.find((span) => span.spanId === outboundId)).toMatchObject({ kind: CLIENT, name: 'POST' });
    } finally {
      await hook.close();
    }
  });

  it('puts the trace and span ids of the active span on log lines', () => {
    expect(logMixin()).toEqual({});
    tracer.startActiveSpan('logged', (span) => {
      const { traceId, spanId } = span.spanContext();
      expect(logMixin()).toEqual({ trace_id: traceId, span_id: spanId });
      requestContext.run({ requestId: 'r-1' }, () =>
        expect(logMixin()).toEqual({ request_id: 'r-1', trace_id: traceId, span_id: spanId }),
      );
      span.end();
    });
  });
});
