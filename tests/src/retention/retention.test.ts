import type { AuditVerdict } from '@beckon/contracts/audit/audit.contract';
import { manualClock } from '@beckon/server/clock';
import { applyRetention } from '@beckon/server/modules/retention/apply-retention';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

const DAY = 24 * 3600_000;
const BATCH = 3;
const clock = manualClock();
let server: TestServer;
let factories: Factories;

beforeAll(async () => {
  server = await startTestServer({ clock, env: { RETENTION_BATCH_SIZE: String(BATCH) } });
  factories = new Factories(server.database.db);
  // Every DELETE statement on these tables logs how many rows it removed: what a batch is.
  await server.database.sql.unsafe(`
    create table removed_batches (tbl text not null, org_id uuid, n int not null);
    create function log_removed_batch() returns trigger language plpgsql as $$
    begin
      insert into removed_batches select TG_TABLE_NAME, min(org_id::text)::uuid, count(*) from gone;
      return null;
    end $$;
    create trigger items_batches after delete on items referencing old table as gone
      for each statement execute function log_removed_batch();
    create trigger comments_batches after delete on comments referencing old table as gone
      for each statement execute function log_removed_batch();
    create trigger audit_batches after delete on audit_entries referencing old table as gone
      for each statement execute function log_removed_batch();`);
});
afterAll(() => server?.close());

/** Created at the database's `now()`: moved back by `days` (the clock stays where it is). */
const age = (table: 'items' | 'comments' | 'attachments' | 'audit_entries', orgId: string, days: number) =>
  server.database.sql`update ${server.database.sql(table)}
                         set created_at = created_at - make_interval(days => ${days}) where org_id = ${orgId}`;

const verify = async (api: HttpClient) => (await api.get<AuditVerdict>('/api/audit/verify')).body;

describe('the retention policy', () => {
  it('keeps everything by default, is set by org.manage holders, and caps audit_days at the plan', async () => {
    const { owner, join } = await factories.team(server.resource);
    const member = await join('member');
    expect((await owner.get('/api/admin/retention')).body).toEqual({
      items_days: null,
      archived_items_days: null,
      comments_days: null,
      attachments_days: null,
      audit_days: null,
      plan_audit_days: 30,
      updated_at: null,
    });
    const set = await owner.put('/api/admin/retention', { items_days: 90, comments_days: 30, audit_days: 7 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      items_days: 90,
      comments_days: 30,
      audit_days: 7,
      archived_items_days: null,
    });
    // Setting again replaces every period: one left out is kept forever.
    expect((await owner.put('/api/admin/retention', { items_days: 60 })).body).toMatchObject({
      items_days: 60,
      comments_days: null,
    });
    expect((await owner.put('/api/admin/retention', { audit_days: 31 })).body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { audit_days: 'must be at most 30 (the plan’s audit retention)' },
    });
    expect((await owner.put('/api/admin/retention', { items_days: 0 })).status).toBe(400);
    expect((await owner.put('/api/admin/retention', { item_days: 5 })).status).toBe(400);
    expect((await member.api.get('/api/admin/retention')).body).toEqual({
      error: 'permission denied',
      code: 'permission_denied',
      required: 'org.manage',
    });
    expect((await member.api.put('/api/admin/retention', { items_days: 1 })).status).toBe(403);
    const audit = (await owner.get<{ entries: { action: string; data: unknown }[] }>('/api/audit')).body;
    expect(audit.entries[0]).toMatchObject({ action: 'retention.update', data: { items_days: 60 } });
  });
});

describe('the apply_retention job', () => {
  it('removes what is past each period in bounded batches, and the audit chain still verifies', async () => {
    const { owner, org } = await factories.team(server.resource);
    const { sql } = server.database;
    const old: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const item = (await owner.post<{ id: string }>('/api/items', { title: `old ${i}` })).body;
      await owner.post(`/api/items/${item.id}/comments`, { body: `note ${i}` });
      await owner.post(`/api/items/${item.id}/${i < 5 ? 'dismiss' : 'archive'}`);
      old.push(item.id);
    }
    const stillOpen = (await owner.post<{ id: string }>('/api/items', { title: 'still open' })).body;
    await age('items', org.id, 100);
    await age('comments', org.id, 100);
    const fresh = (await owner.post<{ id: string }>('/api/items', { title: 'fresh' })).body;
    await owner.post(`/api/items/${fresh.id}/dismiss`);
    await sql`update items set archived_at = archived_at - interval '20 days' where id = ${old[5]!}`;
    expect((await verify(owner)).valid).toBe(true);
    // The chain's first 8 entries, written 100 days ago (their hashes no longer hold: they go).
    await sql`update audit_entries set created_at = created_at - interval '100 days'
               where org_id = ${org.id} and seq <= 8`;

    // Entries from before the chain (no seq) go by their date alone.
    await sql`insert into audit_entries (org_id, action, actor_type, created_at) values
                (${org.id}, 'item.create', 'agent', now() - interval '31 days'),
                (${org.id}, 'item.answer', 'user', now() - interval '29 days')`;

    // Without a policy, only the audit entries past the plan's retention (30 days) go.
    await sql`delete from removed_batches`;
    const byPlan = await applyRetention(server.deps);
    expect(byPlan.removed).toEqual({ audit_entries: 9 });
    const unchained = await sql`
      select action from audit_entries where org_id = ${org.id} and seq is null and content_hash is null`;
    expect(unchained.map((r) => r.action)).toEqual(['item.answer']);
    await sql`delete from audit_entries where org_id = ${org.id} and seq is null and content_hash is null`;
    await owner.put('/api/admin/retention', { items_days: 90, archived_items_days: 10, audit_days: 30 });
    const report = await applyRetention(server.deps);

    // Closed items past 90 days went (5 dismissed + 1 archived past 10 days + the other archived
    // one, also past 90); the open one and the fresh one stay.
    const left = await sql<
      { title: string }[]
    >`select title from items where org_id = ${org.id} order by title`;
    expect(left.map((r) => r.title)).toEqual(['fresh', 'still open']);
    expect(report.removed).toMatchObject({ archived_items: 1, items: 6 });
    // Audit: the chain's start in batches of 3, the entry from before the chain, then this test's own delete.
    const batches = await sql<{ tbl: string; n: number }[]>`
      select tbl, n from removed_batches where org_id = ${org.id}`;
    expect(batches.filter((b) => b.tbl === 'items').map((b) => b.n)).toEqual([1, 3, 3]);
    expect(batches.every((b) => b.tbl !== 'audit_entries' || b.n <= BATCH)).toBe(true);
    expect(batches.filter((b) => b.tbl === 'audit_entries').map((b) => b.n)).toEqual([3, 3, 2, 1, 1]);

    // The audit entries of removed items are not removed with them; the old ones went by their
    // own period, the chain moved its anchor and verifies, and the run is on record.
    const after = await verify(owner);
    expect(after).toMatchObject({ valid: true, broken: null });
    expect(after.anchor.seq).toBe(8);
    const ofRemovedItem = await sql`select 1 from audit_entries where item_id = ${old[4]!}`;
    expect(ofRemovedItem.length).toBe(3);
    const last = (
      await owner.get<{ entries: { action: string; actor_type: string; data: unknown }[] }>('/api/audit')
    ).body.entries[0];
    expect(last).toMatchObject({
      action: 'retention.apply',
      actor_type: 'system',
      data: { removed: { items: 6, archived_items: 1 } },
    });
    expect((await owner.get(`/api/items/${stillOpen.id}`)).status).toBe(200);
    expect((await owner.get(`/api/items/${old[0]!}`)).status).toBe(404);
    // A second run finds nothing due.
    expect((await applyRetention(server.deps)).removed).toEqual({});
  });

  it('goes by the service clock: comments and attachments (with their files) past their period', async () => {
    const { owner } = await factories.team(server.resource);
    const item = (await owner.post<{ id: string }>('/api/items', { title: 'with files' })).body;
    await owner.post(`/api/items/${item.id}/comments`, { body: 'early' });
    const file = await owner.post<{ id: string }>(`/api/items/${item.id}/attachments`, {
      filename: 'log.txt',
      content_type: 'text/plain',
      data: Buffer.from('hello').toString('base64'),
    });
    expect(file.status).toBe(201);
    const [stored] = await server.database.sql<{ storage_key: string }[]>`
      select storage_key from attachments where id = ${file.body.id}`;
    expect(await server.deps.storage.get(stored!.storage_key)).not.toBeNull();
    await owner.put('/api/admin/retention', { comments_days: 5, attachments_days: 5 });

    expect((await applyRetention(server.deps)).removed).toEqual({});
    clock.advance(6 * DAY);
    try {
      const report = await applyRetention(server.deps);
      expect(report.removed).toMatchObject({ comments: 1, attachments: 1 });
      expect(report.files).toBeGreaterThanOrEqual(1);
    } finally {
      clock.advance(-6 * DAY);
    }
    expect((await owner.get<unknown[]>(`/api/items/${item.id}/comments`)).body).toEqual([]);
    expect((await owner.get<unknown[]>(`/api/items/${item.id}/attachments`)).body).toEqual([]);
    expect(await server.deps.storage.get(stored!.storage_key)).toBeNull();
    const queued = await server.database.sql`select 1 from blob_deletions`;
    expect(queued.length).toBe(0);
    expect((await owner.get(`/api/items/${item.id}`)).status).toBe(200);
    expect((await verify(owner)).valid).toBe(true);
  });
});
