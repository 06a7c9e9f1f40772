import { startTracing } from '@beckon/server/tracing/tracing';
import { type Received, startReceiver } from './receiver';

/** A span as the OTLP/HTTP JSON exporter sends it. */
export type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
};
type Export = { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };

/** OTLP span kinds. */
export const INTERNAL = 1;
export const SERVER = 2;
export const CLIENT = 3;
export const CONSUMER = 5;

export const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
};

const exported = (requests: Received[]) =>
  requests
    .filter((request) => request.url === '/v1/traces')
    .flatMap((request) => (JSON.parse(request.body) as Export).resourceSpans)
    .flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));

/**
 * Tracing on for this test process, exporting to a local OTLP/HTTP receiver every 100 ms. Start
 * it before the test server: the request hooks are installed when the apps are built.
 */
export async function startOtlpCollector() {
  const receiver = await startReceiver();
  process.env.OTEL_BSP_SCHEDULE_DELAY = '100';
  const stopTracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, 'resource');
  return {
    url: receiver.url,
    /** Every span received so far. */
    spans: () => exported(receiver.received),
    /** The spans of a trace received so far, waiting until `done` says they are all there. */
    async spansOf(traceId: string, done: (spans: OtlpSpan[]) => boolean): Promise<OtlpSpan[]> {
      for (let waited = 0; ; waited += 100) {
        const spans = exported(receiver.received).filter((span) => span.traceId === traceId);
        if (done(spans) || waited > 10_000) return spans;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close: async () => {
      await stopTracing?.();
      await receiver.close();
    },
  };
}

export type OtlpCollector = Awaited<ReturnType<typeof startOtlpCollector>>;

/** The trace and parent span ids a `traceparent` header names. */
export const traceIdOf = (traceparent: unknown) => String(traceparent).split('-')[1] ?? '';
export const parentIdOf = (traceparent: unknown) => String(traceparent).split('-')[2] ?? '';
