import type { Sql } from '@beckon/db';
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export type MetricsOptions = {
  sql: Sql;
  /** application_name of this process's database connections. */
  applicationName: string;
  poolMax: number;
  /** Also report the job queue (the resource process runs the worker). */
  jobs?: boolean;
  /** Open event subscriptions: SSE streams, WebSockets and calls waiting for an answer. */
  streams?: () => number;
  /** Counted where it happens: deliveries, time to answer (domain-metrics.ts). */
  domain?: Registry;
};

/** Prometheus metrics of one process: requests per route, latency, database pool, job queue. */
export function registerMetrics(app: FastifyInstance, options: MetricsOptions): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method and route template',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  // tRPC's one route by procedure (a batch counts each of its procedures, with the batch's time).
  const calls = new Counter({
    name: 'beckon_trpc_calls_total',
    help: 'tRPC calls by procedure and HTTP status',
    labelNames: ['procedure', 'status'],
    registers: [registry],
  });
  const callDuration = new Histogram({
    name: 'beckon_trpc_call_duration_seconds',
    help: 'tRPC request latency by procedure',
    labelNames: ['procedure'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: reply.statusCode });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    for (const procedure of request.procedures ?? []) {
      calls.inc({ procedure, status: reply.statusCode });
      callDuration.observe({ procedure }, reply.elapsedTime / 1000);
    }
  });

  const { sql } = options;
  new Gauge({
    name: 'beckon_db_pool_max',
    help: 'Maximum connections of the database pool',
    registers: [registry],
  }).set(options.poolMax);
  const dbUp = new Gauge({
    name: 'beckon_db_up',
    help: '1 when the database answered the scrape',
    registers: [registry],
  });
  const connections = new Gauge({
    name: 'beckon_db_connections',
    help: "This process's open database connections by state (pg_stat_activity)",
    labelNames: ['state'],
    registers: [registry],
  });
  const openItems = new Gauge({
    name: 'beckon_open_items',
    help: 'Items waiting for people (status open, not archived), all organizations',
    registers: options.jobs ? [registry] : [],
  });
  const jobs = new Gauge({
    name: 'beckon_jobs',
    help: 'Job queue entries by state: ready, scheduled, running, failed',
    labelNames: ['state'],
    registers: options.jobs ? [registry] : [],
  });

  const streams = options.streams;
  new Gauge({
    name: 'beckon_streams',
    help: 'Open event subscriptions of this process: /mcp/sse streams, WebSockets, calls waiting for an answer',
    registers: streams ? [registry] : [],
    collect() {
      this.set(streams?.() ?? 0);
    },
  });

  // Database figures are read once per scrape, before the registry is serialized.
  const readDatabaseFigures = async () => {
    try {
      const states = await sql<{ state: string; n: number }[]>`
        select coalesce(state, 'unknown') as state, count(*)::int as n
          from pg_stat_activity where application_name = ${options.applicationName} group by 1`;
      connections.reset();
      for (const { state, n } of states) connections.set({ state }, n);
      if (options.jobs) {
        const [row] = await sql<{ ready: number; scheduled: number; running: number; failed: number }[]>`
          select count(*) filter (where locked_at is null and run_at <= now() and attempts < max_attempts)::int as ready,
                 count(*) filter (where locked_at is null and run_at > now() and attempts < max_attempts)::int as scheduled,
                 count(*) filter (where locked_at is not null)::int as running,
                 count(*) filter (where attempts >= max_attempts)::int as failed
            from graphile_worker.jobs`;
        for (const [state, n] of Object.entries(row ?? {})) jobs.set({ state }, n);
        const [open] = await sql<{ n: number }[]>`select count(*)::int as n from items where status = 'open'`;
        openItems.set(open?.n ?? 0);
      }
      dbUp.set(1);
    } catch {
      dbUp.set(0);
    }
  };

  app.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    await readDatabaseFigures();
    reply.type(registry.contentType);
    return options.domain
      ? `${await registry.metrics()}\n${await options.domain.metrics()}`
      : registry.metrics();
  });
  return registry;
}
