import type { Sql } from '@beckon/db';
import type { deliveryKinds } from '@beckon/db/schema';
import { commaList } from '../statement-parts';

export type AttemptRecord = {
  /** UUID v7, so attempts list newest first by id. */
  id: string;
  org_id: string;
  delivery_id: string;
  kind: (typeof deliveryKinds)[number];
  webhook_id: string | null;
  item_id: string | null;
  event: string;
  url: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
};

/** The columns an attempt fills, with their types (the insert sends each as an array). */
const COLUMNS = {
  id: 'uuid',
  org_id: 'uuid',
  delivery_id: 'uuid',
  kind: 'text',
  webhook_id: 'uuid',
  item_id: 'uuid',
  event: 'text',
  url: 'text',
  attempt: 'int',
  status_code: 'int',
  error: 'text',
  duration_ms: 'int',
} as const satisfies Record<keyof AttemptRecord, string>;
const NAMES = Object.keys(COLUMNS) as (keyof AttemptRecord)[];

/**
 * Records delivery attempts in batches: each `record()` resolves once its row is committed, so a
 * job still finishes only after its attempt is stored, but many concurrent jobs share one
 * multi-row insert (a few milliseconds of waiting instead of one statement per delivery).
 */
export class AttemptRecorder {
  private pending: Array<{ row: AttemptRecord; resolve: () => void; reject: (error: unknown) => void }> = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sql: Sql,
    private readonly maxBatch = 200,
    private readonly maxDelayMs = 5,
  ) {}

  record(row: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ row, resolve, reject });
      if (this.pending.length >= this.maxBatch) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.maxDelayMs);
    });
  }

  private async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      await this.insert(batch.map((entry) => entry.row));
      for (const entry of batch) entry.resolve();
    } catch {
      // One row must not sink the others (their jobs would run and POST again): each alone.
      await Promise.all(batch.map((entry) => this.insertAlone(entry.row).then(entry.resolve, entry.reject)));
    }
  }

  /**
   * One statement whatever the batch's size (a column an array): a multi-row VALUES list was a new
   * statement for each size, which PostgreSQL parsed and described in a round trip of its own.
   */
  private insert(rows: AttemptRecord[]) {
    const arrays = NAMES.map(
      (name) => this.sql`${rows.map((row) => row[name])}::${this.sql.unsafe(COLUMNS[name])}[]`,
    );
    return this.sql`
      insert into delivery_attempts (${this.sql(NAMES)}) select * from unnest(${commaList(this.sql, arrays)})`;
  }

  /** A webhook deleted while its delivery was under way: the attempt is kept without it. */
  private async insertAlone(row: AttemptRecord): Promise<void> {
    try {
      await this.insert([row]);
    } catch (error) {
      if ((error as { code?: unknown }).code !== '23503' || row.webhook_id === null) throw error;
      await this.insert([{ ...row, webhook_id: null }]);
    }
  }
}
