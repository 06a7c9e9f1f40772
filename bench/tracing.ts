import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createItems } from './items';
import { type Figures, startResourceProcess } from './lib';
import { median } from './rounds';

/** An OTLP/HTTP endpoint that accepts every export and keeps nothing: the collector's cost is not ours. */
async function otlpSink() {
  let exports = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      exports += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type TracingRound = { variant: string; figures: Figures };

/**
 * Item creation on resource processes that differ only in tracing, in alternating rounds: tracing
 * off (no OTEL_EXPORTER_OTLP_ENDPOINT), tracing on (every span exported to a local sink), and,
 * with BENCH_UNTRACED_TREE naming a checkout of the code before tracing existed (its
 * dependencies installed), that code. Each process has the same settings, no worker, the same
 * database; only one is loaded at a time.
 */
export async function tracingCost(databaseUrl: string, token: string, rounds: number, seconds: number) {
  const sink = await otlpSink();
  const settings = { RUN_WORKER: 'false', DATABASE_POOL_MAX: '20', RATE_LIMIT_API: '1000000000/1m' };
  const variants = [
    { variant: 'tracing off', process: await startResourceProcess(databaseUrl, settings) },
    {
      variant: 'tracing on, OTLP to a local sink',
      process: await startResourceProcess(databaseUrl, {
        ...settings,
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      }),
    },
  ];
  const untraced = process.env.BENCH_UNTRACED_TREE;
  if (untraced)
    variants.unshift({
      variant: 'before tracing',
      process: await startResourceProcess(databaseUrl, settings, untraced),
    });
  try {
    for (const { process: server } of variants) await createItems(server.url, token, 2, 10); // warm-up
    const measured: TracingRound[] = [];
    for (let round = 1; round <= rounds; round++)
      for (const { variant, process: server } of variants)
        measured.push({
          variant,
          figures: {
            ...(await createItems(server.url, token, seconds, 50)),
            name: `POST /api/items, ${variant} (round ${round})`,
          },
        });
    const medians = variants.map(({ variant }) => ({
      variant,
      rps: median(measured.filter((m) => m.variant === variant).map((m) => m.figures.rps)),
      p99: median(measured.filter((m) => m.variant === variant).map((m) => m.figures.p99)),
    }));
    return { measured, medians, exports: sink.exports() };
  } finally {
    for (const { process: server } of variants) await server.stop();
    await sink.close();
  }
}
