import { context, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { activeTraceHeaders, activeTraceIds, startTracing, tracesUrl, tracingEnabled } from './tracing';

describe('tracing', () => {
  it('is off without an OTLP endpoint: no SDK registered, nothing carried or logged', async () => {
    expect(await startTracing({}, 'resource')).toBeUndefined();
    expect(tracingEnabled()).toBe(false);
    // The API alone: spans are non-recording and no context manager carries them.
    const span = trace.getTracer('check').startSpan('x');
    expect(span.isRecording()).toBe(false);
    context.with(trace.setSpan(context.active(), span), () => {
      expect(activeTraceHeaders()).toBeUndefined();
      expect(activeTraceIds()).toBeUndefined();
    });
  });

  it('sends to <endpoint>/v1/traces unless the traces endpoint is given', () => {
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      tracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces.example/otlp',
      }),
    ).toBe('http://traces.example/otlp');
    expect(tracesUrl({})).toBeUndefined();
  });
});
