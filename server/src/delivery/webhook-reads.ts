import type { Sql } from '@beckon/db';
import type { DeliveryJob } from './delivery-job';

/** A webhook with the event of a first attempt (null event columns for a retry, or when it is gone). */
export type WebhookWithEvent = {
  id: string;
  org_id: string;
  url: string;
  secret: string;
  active: boolean;
  event_id: string | null;
  type: DeliveryJob['event'];
  item_id: string | null;
  data: unknown;
  created_at: Date;
};

type Read = {
  webhookId: string;
  eventId: string | null;
  resolve: (row: WebhookWithEvent | undefined) => void;
  reject: (error: unknown) => void;
};

/**
 * Reads of the webhook a delivery goes to, with its event, batched: the deliveries of one
 * organization that start in the same turn of the event loop share one query (one round trip
 * and one statement for the database instead of one each). Each statement names its organization,
 * as the query rule wants (db/src/statement-rule.ts).
 */
export class WebhookReads {
  private pending = new Map<string, Read[]>();

  constructor(private readonly sql: Sql) {}

  read(orgId: string, webhookId: string, eventId: string | null): Promise<WebhookWithEvent | undefined> {
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) setImmediate(() => this.flush());
      const reads = this.pending.get(orgId);
      const read = { webhookId, eventId, resolve, reject };
      if (reads) reads.push(read);
      else this.pending.set(orgId, [read]);
    });
  }

  private flush(): void {
    const batches = this.pending;
    this.pending = new Map();
    for (const [orgId, reads] of batches) {
      this.query(orgId, reads).then(
        (rows) => {
          const byIndex = new Map(rows.map(({ i, ...row }) => [Number(i), row]));
          for (const [index, read] of reads.entries()) read.resolve(byIndex.get(index + 1));
        },
        (error: unknown) => {
          for (const read of reads) read.reject(error);
        },
      );
    }
  }

  private query(orgId: string, reads: Read[]) {
    const { sql } = this;
    return sql<(WebhookWithEvent & { i: string })[]>`
      select r.i, w.id, w.org_id, w.url, w.secret, w.active,
             e.id as event_id, e.type, e.item_id, e.data, e.created_at
        from unnest(${reads.map((r) => r.webhookId)}::uuid[], ${reads.map((r) => r.eventId)}::uuid[])
             with ordinality as r (webhook_id, event_id, i)
        join webhooks w on w.org_id = ${orgId} and w.id = r.webhook_id
        left join events e on e.org_id = ${orgId} and e.id = r.event_id`;
  }
}
