import { Counter, Histogram, Registry } from 'prom-client';

export type DeliveryKind = 'callback' | 'webhook';
/** `delivered`; `retrying` (failed, another attempt is scheduled); `failed` (given up or refused). */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

/**
 * What this process did, counted where it happens (exposed by its /metrics, http/metrics.ts):
 * delivery attempts by kind and outcome, the time from an item's creation to its answer, and
 * the rows retention periods removed.
 * Figures read from the database at each scrape (open items, job queue) are in http/metrics.ts.
 */
export function createDomainMetrics() {
  const registry = new Registry();
  const deliveries = new Counter({
    name: 'beckon_delivery_attempts_total',
    help: 'Callback and webhook delivery attempts by kind and outcome (delivered, retrying, failed)',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
  });
  const timeToAnswer = new Histogram({
    name: 'beckon_time_to_answer_seconds',
    help: 'From an item’s creation to its answer, by who answered (user, agent, policy)',
    labelNames: ['answered_by'],
    buckets: [10, 30, 60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 24 * 3600, 7 * 24 * 3600],
    registers: [registry],
  });
  const retentionRemoved = new Counter({
    name: 'beckon_retention_removed_total',
    help: 'Rows removed by retention periods, by kind (items, archived_items, comments, attachments, audit_entries)',
    labelNames: ['kind'],
    registers: [registry],
  });
  return {
    registry,
    retentionRemoved: (kind: string, n: number) => retentionRemoved.inc({ kind }, n),
    delivery: (kind: DeliveryKind, outcome: DeliveryOutcome) => deliveries.inc({ kind, outcome }),
    answered: (createdAt: Date | string, answeredAt: Date | string, answeredBy: string) =>
      timeToAnswer.observe(
        { answered_by: answeredBy },
        Math.max(0, new Date(answeredAt).getTime() - new Date(createdAt).getTime()) / 1000,
      ),
  };
}

export type DomainMetrics = ReturnType<typeof createDomainMetrics>;
