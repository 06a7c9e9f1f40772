import { recordAudit } from '@beckon/server/modules/audit/audit.service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, startTestServer, type TestServer } from '../harness';

const BUDGET = 65_536;
let server: TestServer;
let f: Factories;

beforeAll(async () => {
  server = await startTestServer({ env: { LIST_PAGE_MAX_BYTES: String(BUDGET) } });
  f = new Factories(server.database.db);
});
afterAll(() => server?.close());

type Page = { items: { id: string }[]; next_cursor: string | null };

describe('list pages are bounded in bytes (LIST_PAGE_MAX_BYTES)', () => {
  it('ends a page of large items early with a cursor, and the cursor walks them all once', async () => {
    const { token } = await f.account();
    const api = server.resource.as(token);
    const created: string[] = [];
    for (let i = 0; i < 8; i++) {
      const message = `${i} ${'large message '.repeat(1400)}`;
      const res = await api.post<{ id: string }>('/api/items', { title: `Large ${i}`, message });
      expect(res.status).toBe(201);
      created.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : '';
      const res = await api.get<Page>(`/api/items?limit=8${query}`);
      expect(res.status).toBe(200);
      pages += 1;
      // Every page holds at least one item and, past the first, stays within the budget.
      expect(res.body.items.length).toBeGreaterThan(0);
      if (res.body.items.length > 1) expect(res.text.length).toBeLessThanOrEqual(BUDGET + 4096);
      seen.push(...res.body.items.map((item) => item.id));
      cursor = res.body.next_cursor;
    } while (cursor && pages < 20);
    expect(pages).toBeGreaterThan(1);
    expect([...seen].sort()).toEqual([...created].sort());
    expect(new Set(seen).size).toBe(created.length);

    // Small items fill a page up to its limit as before.
    const small = await f.account();
    const smallApi = server.resource.as(small.token);
    for (let i = 0; i < 3; i++) await smallApi.post('/api/items', { title: `Small ${i}` });
    const page = await smallApi.get<Page>('/api/items?limit=3');
    expect(page.body.items).toHaveLength(3);
    expect(page.body.next_cursor).toBeNull();
  });

  it('ends an audit log page early too', async () => {
    const { token, org, user } = await f.account();
    for (let i = 0; i < 6; i++) {
      await recordAudit(server.database.sql, {
        orgId: org.id,
        action: 'setting.update',
        actor: { type: 'user', id: user.id },
        data: { key: `k${i}`, note: 'x'.repeat(30_000) },
      });
    }
    const api = server.resource.as(token);
    const first = await api.get<{ entries: { id: string }[]; next_cursor: string | null }>(
      '/api/audit?limit=6',
    );
    expect(first.status).toBe(200);
    expect(first.body.entries.length).toBeGreaterThan(0);
    expect(first.body.entries.length).toBeLessThan(6);
    expect(first.body.next_cursor).not.toBeNull();
    const seen = first.body.entries.map((e) => e.id);
    let cursor = first.body.next_cursor;
    while (cursor) {
      const page = await api.get<{ entries: { id: string }[]; next_cursor: string | null }>(
        `/api/audit?limit=6&cursor=${cursor}`,
      );
      seen.push(...page.body.entries.map((e) => e.id));
      cursor = page.body.next_cursor;
    }
    expect(new Set(seen).size).toBe(6);
  });
});
