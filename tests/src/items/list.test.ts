import { uuidv7 } from 'uuidv7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

type Item = { id: string; title: string; pinned: boolean; status: string };
type Page = { items: Item[]; next_cursor: string | null };

let server: TestServer;
let client: HttpClient;
let orgId: string;
let userId: string;

beforeAll(async () => {
  server = await startTestServer();
  const account = await new Factories(server.database.db).account('owner');
  orgId = account.org.id;
  userId = account.user.id;
  client = server.resource.as(account.token);
});
afterAll(() => server?.close());

/** Items written in bulk, in creation order (UUID v7 ids), as an agent would have created them. */
async function seed(count: number, title = 'seeded') {
  const ids = Array.from({ length: count }, () => uuidv7());
  await server.database.sql`
    insert into items (id, org_id, title, created_by_type, created_by_id)
    select id, ${orgId}, ${title} || ' ' || n, 'user', ${userId}
      from unnest(${ids}::uuid[]) with ordinality as t(id, n)`;
}

describe('GET /api/items', () => {
  it('pages through more than 200 items with no duplicates or gaps while items are being created', async () => {
    await seed(230, 'page');
    const before = await server.database.sql<{ id: string }[]>`
      select id from items where org_id = ${orgId} order by pinned desc, id desc`;
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `/api/items?limit=50${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await client.get<Page>(query);
      expect(res.status).toBe(200);
      seen.push(...res.body.items.map((i) => i.id));
      cursor = res.body.next_cursor;
      pages += 1;
      // A newer item arrives between pages: it sorts before the cursor and never shifts a page.
      await client.post('/api/items', { title: `arrived during page ${pages}` });
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(before.map((r) => r.id));
    expect(pages).toBe(5);
  });

  it('caps the page at 200 and refuses a bad limit or cursor', async () => {
    expect((await client.get<Page>('/api/items?limit=200')).body.items).toHaveLength(200);
    const capped = await client.get<Page>('/api/items?limit=500');
    expect(capped.status).toBe(200);
    expect(capped.body.items).toHaveLength(200);
    expect(capped.body.next_cursor).toEqual(expect.any(String));
    for (const bad of ['0', '-1', '1.5', 'many']) {
      const refused = await client.get(`/api/items?limit=${bad}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body, bad).toMatchObject({ fields: { limit: expect.any(String) } });
    }
    expect((await client.get('/api/items?cursor=garbage')).body).toEqual({
      error: 'invalid request',
      code: 'invalid_request',
      fields: { cursor: 'invalid cursor' },
    });
  });

  it('puts pinned items first, then newest first', async () => {
    const a = (await client.post<Item>('/api/items', { title: 'older, pinned' })).body;
    await client.post('/api/items', { title: 'newest' });
    await client.post(`/api/items/${a.id}/pin`);
    const items = (await client.get<Page>('/api/items?limit=3')).body.items;
    expect(items.map((i) => i.title)).toEqual(['older, pinned', 'newest', expect.any(String)]);
  });

  it('filters by status and channel, and hides archived items unless asked', async () => {
    const [channel] = await server.database.sql<{ id: string }[]>`
      insert into channels (org_id, name) values (${orgId}, 'ops') returning id`;
    const inChannel = (await client.post<Item>('/api/items', { title: 'ops thing', channel_id: channel!.id }))
      .body;
    expect(inChannel).toMatchObject({ channel: 'ops', channel_id: channel!.id });
    const byChannel = (await client.get<Page>(`/api/items?channel_id=${channel!.id}`)).body.items;
    expect(byChannel.map((i) => i.id)).toEqual([inChannel.id]);

    await client.post(`/api/items/${inChannel.id}/archive`);
    const listed = async (query: string) =>
      (await client.get<Page>(`/api/items?limit=200&channel_id=${channel!.id}${query}`)).body.items.map(
        (i) => i.id,
      );
    expect(await listed('')).toEqual([]);
    expect(await listed('&include_archived=true')).toEqual([inChannel.id]);
    expect(await listed('&status=archived')).toEqual([inChannel.id]);
    expect(await listed('&status=open')).toEqual([]);
    expect((await client.get('/api/items?status=bogus')).status).toBe(400);
  });

  it('searches title and message', async () => {
    await client.post('/api/items', { title: 'Rotate the database password', message: 'quarterly hygiene' });
    await client.post('/api/items', { title: 'Lunch order', message: 'pizza or salad' });
    const hits = async (q: string) =>
      (await client.get<Page>(`/api/items?q=${encodeURIComponent(q)}`)).body.items.map((i) => i.title);
    expect(await hits('password')).toEqual(['Rotate the database password']);
    expect(await hits('hygiene')).toEqual(['Rotate the database password']);
    expect(await hits('pizza')).toEqual(['Lunch order']);
    expect(await hits('nothing-matches-this')).toEqual([]);
  });

  it('never lists another organization’s items', async () => {
    const stranger = server.resource.as((await new Factories(server.database.db).account()).token);
    expect((await stranger.get<Page>('/api/items')).body).toEqual({ items: [], next_cursor: null });
  });
});
