import { recordAudit } from '@beckon/server/modules/audit/audit.service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpClient, signedInCallers, startTestServer, type TestServer } from '../harness';

type Entry = {
  id: string;
  item_id: string | null;
  action: string;
  actor_type: string;
  actor_id: string | null;
  data: Record<string, unknown>;
  created_at: string;
};
type Page = { entries: Entry[]; next_cursor: string | null };

let server: TestServer;
let owner: HttpClient;
let member: HttpClient;
let viewer: HttpClient;
let other: HttpClient;
let orgId: string;
let userId: string;
let otherItemId: string;

beforeAll(async () => {
  server = await startTestServer();
  ({ owner, member, viewer, other, orgId, userId } = await signedInCallers(
    server.database.db,
    server.resource,
  ));
  // Another organization is busy at the same time: none of this may show up in ours.
  otherItemId = (await other.post<{ id: string }>('/api/items', { title: 'theirs' })).body.id;
  await other.post(`/api/items/${otherItemId}/ack`);
  await other.put('/api/settings/theirs', { value: 1 });
});
afterAll(() => server?.close());

/** Every page of the log, following next_cursor. */
async function walk(client: HttpClient, query = '') {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: { status: number; body: Page } = await client.get<Page>(
      `/api/audit?${query}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status).toBe(200);
    entries.push(...res.body.entries);
    cursor = res.body.next_cursor;
    pages += 1;
  } while (cursor);
  return { entries, pages };
}

describe('GET /api/audit', () => {
  it('shows the changes made through the API, newest first, with who made them', async () => {
    const item = (await owner.post<{ id: string }>('/api/items', { title: 'audited' })).body;
    await owner.post(`/api/items/${item.id}/pin`);
    await owner.put('/api/settings/ui.theme', { value: 'dark' });
    const res = await owner.get<Page>('/api/audit?limit=3');
    expect(res.status).toBe(200);
    expect(res.body.entries).toEqual([
      {
        id: expect.any(String),
        item_id: null,
        action: 'setting.update',
        actor_type: 'user',
        actor_id: userId,
        data: { key: 'ui.theme' },
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
      expect.objectContaining({ item_id: item.id, action: 'item.pin', actor_type: 'user', actor_id: userId }),
      expect.objectContaining({ item_id: item.id, action: 'item.create', data: {} }),
    ]);
    expect(res.body.next_cursor).toBeNull();
  });

  it('pages through more than 50 entries with no duplicates or gaps', async () => {
    // 120 entries written straight through the audit writer (ids are UUID v7, so creation
    // order), plus a few made through the API while paging.
    for (let n = 1; n <= 120; n += 1) {
      await recordAudit(server.database.sql, {
        orgId,
        action: 'seeded',
        actor: { type: 'system', id: null },
        data: { n },
      });
    }
    const expected = await server.database.sql<{ id: string }[]>`
      select id from audit_entries where org_id = ${orgId} order by id desc`;
    expect(expected.length).toBeGreaterThan(120);

    const first = await owner.get<Page>('/api/audit');
    expect(first.body.entries).toHaveLength(50);
    expect(first.body.entries[0]?.data).toEqual({ n: 120 });
    const seen = [...first.body.entries.map((e) => e.id)];
    let cursor = first.body.next_cursor;
    while (cursor) {
      // A newer entry arrives between pages: it sorts before the cursor and never shifts a page.
      await owner.put('/api/settings/during-paging', { value: seen.length });
      const page: Page = (await owner.get<Page>(`/api/audit?cursor=${cursor}`)).body;
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.next_cursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expected.map((r) => r.id));

    const { entries, pages } = await walk(owner, 'limit=200');
    expect(pages).toBe(1);
    expect(entries.map((e) => e.id)).toEqual(
      (
        await server.database.sql<{ id: string }[]>`
        select id from audit_entries where org_id = ${orgId} order by id desc`
      ).map((r) => r.id),
    );
  });

  it('filters by item', async () => {
    const item = (await owner.post<{ id: string }>('/api/items', { title: 'filtered' })).body;
    await owner.post(`/api/items/${item.id}/ack`);
    await owner.post(`/api/items/${item.id}/dismiss`);
    await owner.post(`/api/items/${item.id}/comments`, { body: 'why' });
    await owner.post('/api/items', { title: 'unrelated' });
    const { entries } = await walk(owner, `item_id=${item.id}&limit=2`);
    expect(entries.map((e) => e.action)).toEqual([
      'comment.create',
      'item.dismiss',
      'item.ack',
      'item.create',
    ]);
    expect(entries.every((e) => e.item_id === item.id)).toBe(true);
  });

  it('never shows another organization’s entries', async () => {
    const mine = await walk(owner, 'limit=200');
    const theirs = await walk(other, 'limit=200');
    expect(mine.entries.some((e) => e.item_id === otherItemId)).toBe(false);
    expect(mine.entries.some((e) => e.data.key === 'theirs')).toBe(false);
    const own = new Set(mine.entries.map((e) => e.id));
    expect(theirs.entries.some((e) => own.has(e.id))).toBe(false);
    expect(theirs.entries.map((e) => e.action)).toEqual(['setting.update', 'item.ack', 'item.create']);
    // Filtering on their item from our side finds nothing.
    expect((await owner.get<Page>(`/api/audit?item_id=${otherItemId}`)).body).toEqual({
      entries: [],
      next_cursor: null,
    });
  });

  it('answers 400 for a bad limit, cursor or item id', async () => {
    const body = async (query: string) => {
      const res = await owner.get<{ error: string; fields: Record<string, string> }>(`/api/audit?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid request');
      return res.body.fields;
    };
    expect(await body('cursor=garbage')).toEqual({ cursor: 'invalid cursor' });
    expect(Object.keys(await body('limit=0'))).toEqual(['limit']);
    expect(Object.keys(await body('limit=ten'))).toEqual(['limit']);
    expect(Object.keys(await body('item_id=not-a-uuid'))).toEqual(['item_id']);
    expect((await body('bogus=1')).bogus).toBe('unknown field');
    expect((await owner.get<Page>('/api/audit?limit=200')).status).toBe(200);
    expect((await owner.get<Page>('/api/audit?limit=201')).status).toBe(200); // capped, as for items
  });

  it('needs audit.read', async () => {
    for (const client of [member, viewer]) {
      const denied = await client.get('/api/audit');
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({
        error: 'permission denied',
        code: 'permission_denied',
        required: 'audit.read',
      });
    }
    expect((await server.resource.get('/api/audit')).status).toBe(401);
  });
});
