import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * The OpenTelemetry SDK of a traced process, imported by tracing.ts only when an OTLP endpoint is
 * set. Spans are batched and sent as OTLP/HTTP JSON; the exporter and the batch processor read
 * the rest of their standard settings themselves (OTEL_EXPORTER_OTLP_HEADERS,
 * OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_BSP_SCHEDULE_DELAY, OTEL_TRACES_SAMPLER...), and
 * OTEL_RESOURCE_ATTRIBUTES adds to the resource. Registering sets the global tracer provider, the
 * AsyncLocalStorage context manager and the W3C Trace Context propagator.
 */
export function registerTracing(options: { url: string; serviceName: string }): () => Promise<void> {
  const resource = resourceFromAttributes({ 'service.name': options.serviceName }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.url }))],
  });
  provider.register();
  return () => provider.shutdown();
}
