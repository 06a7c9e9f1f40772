import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkout } from './compare';
import { createItems } from './items';
import { type Figures, SERVER_ENV, startResourceProcess } from './lib';
import { median, percent } from './rounds';

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

const CONNECTIONS = 10;

export type TracingRound = { variant: string; figures: Figures; cpuMsPerRequest: number };

/** CPU time (user + system) a process has used, in ms: /proc/<pid>/stat, in clock ticks of 10 ms. */
const cpuMs = (pid: number | undefined) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/**
 * Item creation on resource processes that differ only in tracing, in alternating rounds: tracing
 * off (no OTEL_EXPORTER_OTLP_ENDPOINT), tracing on (every span exported to a local sink) and, with
 * BENCH_BEFORE=<commit> naming a commit from before tracing existed, that commit's code (checked
 * out as `bench compare` does; the schema is the same). Same settings, same database, one loaded
 * at a time; 10 connections, fewer than `create`'s 50, which time out on a loaded machine.
 */
export async function tracingCost(databaseUrl: string, token: string, rounds: number, seconds: number) {
  const sink = await otlpSink();
  const before = process.env.BENCH_BEFORE;
  const variants = [
    ...(before
      ? [
          {
            variant: `before tracing (${before})`,
            process: await startResourceProcess(databaseUrl, SERVER_ENV, checkout(before)),
          },
        ]
      : []),
    { variant: 'tracing off', process: await startResourceProcess(databaseUrl, SERVER_ENV) },
    {
      variant: 'tracing on, OTLP to a local sink',
      process: await startResourceProcess(databaseUrl, {
        ...SERVER_ENV,
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      }),
    },
  ];
  // Throughput swings with whatever else the machine runs; the CPU time the process itself spent
  // per request much less, so both are reported.
  const measure = async (
    server: { url: string; pid: number | undefined },
    variant: string,
    round: number,
  ) => {
    const before = cpuMs(server.pid);
    const figures = await createItems(server.url, token, seconds, CONNECTIONS);
    const spent = cpuMs(server.pid) - before;
    return {
      figures: { ...figures, name: `POST /api/items, ${variant} (round ${round})` },
      cpuMsPerRequest: Math.round((spent / Math.max(1, figures.requests ?? 0)) * 100) / 100,
    };
  };
  try {
    for (const { process: server } of variants) await createItems(server.url, token, 2, 10); // warm-up
    const measured: TracingRound[] = [];
    for (let round = 1; round <= rounds; round++)
      for (const { variant, process: server } of variants)
        measured.push({
          variant,
          ...(await measure(server, variant, round)),
        });
    const medians = variants.map(({ variant }) => {
      const of = measured.filter((m) => m.variant === variant);
      return {
        variant,
        rps: median(of.map((m) => m.figures.rps)),
        p99: median(of.map((m) => m.figures.p99)),
        cpuMsPerRequest: median(of.map((m) => m.cpuMsPerRequest)),
      };
    });
    return { measured, medians, exports: sink.exports() };
  } finally {
    for (const { process: server } of variants) await server.stop();
    await sink.close();
  }
}

/** The medians against the first variant (before tracing, else tracing off), then each round. */
export function tracingNotes(cost: Awaited<ReturnType<typeof tracingCost>>, rounds: number): string[] {
  const [baseline] = cost.medians;
  return [
    ...cost.medians.map(
      ({ variant, rps, p99, cpuMsPerRequest }) =>
        `${variant}: median of ${rounds} rounds ${rps} req/s, p99 ${p99} ms, ${cpuMsPerRequest} ms CPU per request` +
        (baseline && variant !== baseline.variant
          ? ` (${percent(rps / baseline.rps)} of the throughput and ${percent(cpuMsPerRequest / baseline.cpuMsPerRequest)} of the CPU of ${baseline.variant})`
          : ''),
    ),
    ...cost.measured.map(
      ({ figures, cpuMsPerRequest }) => `${figures.name}: ${cpuMsPerRequest} ms CPU per request`,
    ),
    `OTLP exports received by the sink: ${cost.exports}`,
  ];
}
