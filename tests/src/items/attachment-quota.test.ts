import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, planLimitBody, startTestServer, type TestServer } from '../harness';

/**
 * Attachment storage per organization: its plan's `attachment_storage_bytes` (Free 100 MiB, Team
 * 10 GiB, Enterprise unlimited). Here Free is lowered to 3,000 bytes so a few uploads reach it.
 */

let server: TestServer;
let f: Factories;
const LIMIT = 3000;

beforeAll(async () => {
  server = await startTestServer();
  f = new Factories(server.database.db);
  await server.database.sql`update plans set attachment_storage_bytes = ${LIMIT} where code = 'free'`;
});
afterAll(() => server?.close());

async function orgWithItem() {
  const account = await f.account('owner');
  const api = server.resource.as(account.token);
  const item = (await api.post<{ id: string }>('/api/items', { title: 'Logs' })).body;
  return { orgId: account.org.id, api, itemId: item.id };
}

const upload = (api: HttpClient, itemId: string, bytes: number) =>
  api.post<{ id: string; size: number }>(`/api/items/${itemId}/attachments`, {
    filename: 'log.txt',
    content_type: 'text/plain',
    data: Buffer.alloc(bytes, 'a').toString('base64'),
  });

const filesOf = async (orgId: string) => {
  const dir = path.join(server.deps.env.DATA_DIR, 'attachments', orgId);
  return existsSync(dir) ? (await readdir(dir)).length : 0;
};

describe("an organization's attachment storage", () => {
  it("is its plan's: past it the upload is a 402 naming the bytes in use, and nothing is stored", async () => {
    const { orgId, api, itemId } = await orgWithItem();
    expect((await upload(api, itemId, 2000)).status).toBe(201);
    expect((await upload(api, itemId, 1000)).status).toBe(201);
    const refused = await upload(api, itemId, 1);
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual(planLimitBody('attachment_storage_bytes', LIMIT, 3000));
    expect(await filesOf(orgId)).toBe(2);

    // Deleting frees the space.
    const [first] = (await api.get<{ id: string }[]>(`/api/items/${itemId}/attachments`)).body;
    expect((await api.delete(`/api/items/${itemId}/attachments/${first!.id}`)).status).toBe(200);
    expect((await upload(api, itemId, 2000)).status).toBe(201);

    // Another organization counts only its own; a plan without a limit counts nothing.
    const other = await orgWithItem();
    expect((await upload(other.api, other.itemId, 2500)).status).toBe(201);
    await server.database.sql`
      update subscriptions set plan_id = (select id from plans where code = 'enterprise') where org_id = ${orgId}`;
    expect((await upload(api, itemId, 2500)).status).toBe(201);
  });

  it('counts concurrent uploads one after the other: never past the limit', async () => {
    const { orgId, api, itemId } = await orgWithItem();
    const results = await Promise.all(Array.from({ length: 6 }, () => upload(api, itemId, 1000)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 402, 402, 402]);
    const [used] = await server.database.sql<{ bytes: number }[]>`
      select coalesce(sum(size), 0)::int as bytes from attachments where org_id = ${orgId}`;
    expect(used?.bytes).toBe(3000);
    // A refused upload's file, stored before the count, is removed again.
    expect(await filesOf(orgId)).toBe(3);
  });
});
