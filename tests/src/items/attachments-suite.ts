// Longer than 300 lines: every attachment rule (types, sizes, 413, downloads, deletion, foreign ids) over one server, for each storage backend.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, type HttpClient, startTestServer, type TestServer } from '../harness';

export type Attachment = {
  id: string;
  item_id: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  created_at: string;
};

/** Where a test server keeps attachment files, as the suite looks into it. */
export type StorageUnderTest = {
  name: string;
  /** The server's environment for this backend. */
  env: () => Record<string, string>;
  /** Attachment ids with a stored file under an organization, sorted. */
  filesOf: (server: TestServer, orgId: string) => Promise<string[]>;
  /** The stored bytes of an attachment, or null. */
  bytesOf: (server: TestServer, orgId: string, attachmentId: string) => Promise<Buffer | null>;
  /** Half-written files a failed upload could leave (the local directory's `.tmp`). */
  leftovers: (server: TestServer) => Promise<string[]>;
};

const MiB = 1024 * 1024;

/** The attachment rules of the specification and decisions.md, over one storage backend. */
export function attachmentsSuite(storage: StorageUnderTest) {
  describe(`attachments on ${storage.name} storage`, () => {
    let server: TestServer;
    let f: Factories;
    let owner: HttpClient;
    let viewer: HttpClient;
    let other: HttpClient;
    let orgId: string;
    let otherOrgId: string;

    beforeAll(async () => {
      server = await startTestServer({ env: storage.env() });
      f = new Factories(server.database.db);
      const account = await f.account('owner');
      orgId = account.org.id;
      owner = server.resource.as(account.token);
      const viewerUser = await f.user();
      await f.member(orgId, viewerUser.id, 'viewer');
      viewer = server.resource.as((await f.session(viewerUser.id, orgId)).token);
      const otherAccount = await f.account('owner');
      otherOrgId = otherAccount.org.id;
      other = server.resource.as(otherAccount.token);
    });
    afterAll(() => server?.close());

    const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    const filesOf = (org: string) => storage.filesOf(server, org);
    const stored = (org: string, attachmentId: string) => storage.bytesOf(server, org, attachmentId);

    const createItem = async () => {
      const res = await owner.post<{ id: string }>('/api/items', { title: 'With files' });
      expect(res.status).toBe(201);
      return res.body.id;
    };

    const upload = (
      client: HttpClient,
      itemId: string,
      body: { filename?: string; content_type?: string; data?: string } = {},
      headers: Record<string, string> = {},
    ) =>
      client.post<Attachment>(
        `/api/items/${itemId}/attachments`,
        {
          filename: 'notes.txt',
          content_type: 'text/plain',
          data: Buffer.from('hello').toString('base64'),
          ...body,
        },
        { headers },
      );

    /** The raw bytes of a download (the harness client reads text). */
    const download = async (client: HttpClient | null, itemId: string, attachmentId: string) => {
      const headers: Record<string, string> = client?.token
        ? { authorization: `Bearer ${client.token}` }
        : {};
      const url = `${server.resource.baseUrl}/api/items/${itemId}/attachments/${attachmentId}/download`;
      const res = await fetch(url, { headers });
      return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
    };

    describe('upload, list, download, delete', () => {
      it('round-trips binary bytes with the documented metadata and headers', async () => {
        const itemId = await createItem();
        const bytes = randomBytes(200 * 1024);
        bytes.fill(0, 0, 64);
        bytes.fill(0, 100_000, 100_100);
        const filename = 'rapport été.pdf';

        const res = await upload(owner, itemId, {
          filename,
          content_type: 'application/pdf',
          data: bytes.toString('base64'),
        });
        expect(res.status).toBe(201);
        expect(res.body).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          item_id: itemId,
          filename,
          content_type: 'application/pdf',
          size: bytes.length,
          sha256: sha256(bytes),
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        });
        const attachment = res.body;
        expect(await stored(orgId, attachment.id)).toEqual(bytes);

        const got = await download(owner, itemId, attachment.id);
        expect(got.status).toBe(200);
        expect(got.bytes.equals(bytes)).toBe(true);
        expect(got.headers.get('content-type')).toBe('application/pdf');
        expect(got.headers.get('content-length')).toBe(String(bytes.length));
        expect(got.headers.get('content-disposition')).toBe(
          `attachment; filename="rapport ete.pdf"; filename*=UTF-8''rapport%20%C3%A9t%C3%A9.pdf`,
        );
        expect(got.headers.get('x-content-type-options')).toBe('nosniff');
        expect(got.headers.get('cache-control')).toBe('private, no-store');

        const head = await fetch(
          `${server.resource.baseUrl}/api/items/${itemId}/attachments/${attachment.id}/download`,
          { method: 'HEAD', headers: { authorization: `Bearer ${owner.token}` } },
        );
        expect(head.status).toBe(200);
        expect(Object.fromEntries(head.headers)).toMatchObject(
          Object.fromEntries(
            [
              'content-type',
              'content-length',
              'content-disposition',
              'x-content-type-options',
              'cache-control',
            ].map((name) => [name, got.headers.get(name)]),
          ),
        );
        expect((await head.arrayBuffer()).byteLength).toBe(0);

        const list = await owner.get<Attachment[]>(`/api/items/${itemId}/attachments`);
        expect(list.status).toBe(200);
        expect(list.body).toEqual([attachment]);
      });

      it('lists oldest first and serves each file with its own content type', async () => {
        const itemId = await createItem();
        const first = await upload(owner, itemId, {
          filename: 'a.txt',
          content_type: 'text/plain; charset=utf-8',
        });
        const second = await upload(owner, itemId, {
          filename: 'b.json',
          content_type: 'application/json',
          data: Buffer.from('{"a":1}').toString('base64'),
        });
        expect([first.status, second.status]).toEqual([201, 201]);
        const list = await owner.get<Attachment[]>(`/api/items/${itemId}/attachments`);
        expect(list.body.map((a) => a.filename)).toEqual(['a.txt', 'b.json']);
        expect(list.body.map((a) => a.size)).toEqual([5, 7]);

        const text = await download(owner, itemId, first.body.id);
        expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
        expect(text.bytes.toString()).toBe('hello');
        const json = await download(owner, itemId, second.body.id);
        expect(json.headers.get('content-type')).toBe('application/json');
        expect(json.bytes.toString()).toBe('{"a":1}');
      });

      it('accepts the url-safe alphabet and base64 without padding, and an empty file', async () => {
        const itemId = await createItem();
        const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0xfe, 0x00]);
        expect(bytes.toString('base64')).toMatch(/[+/]/);
        for (const data of [bytes.toString('base64url'), bytes.toString('base64').replace(/=+$/, '')]) {
          const res = await upload(owner, itemId, {
            filename: 'bin',
            content_type: 'application/octet-stream',
            data,
          });
          expect(res.status).toBe(201);
          expect(res.body).toMatchObject({ size: 5, sha256: sha256(bytes) });
          expect((await download(owner, itemId, res.body.id)).bytes).toEqual(bytes);
        }
        const empty = await upload(owner, itemId, { data: '' });
        expect(empty.status).toBe(201);
        expect(empty.body.size).toBe(0);
        const got = await download(owner, itemId, empty.body.id);
        expect(got.status).toBe(200);
        expect(got.bytes.length).toBe(0);
      });

      it('deletes the row and the stored file, answering the deleted metadata', async () => {
        const itemId = await createItem();
        const created = (await upload(owner, itemId)).body;
        expect(await stored(orgId, created.id)).toEqual(Buffer.from('hello'));

        const res = await owner.delete<Attachment>(`/api/items/${itemId}/attachments/${created.id}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(created);

        expect((await download(owner, itemId, created.id)).status).toBe(404);
        expect((await owner.get(`/api/items/${itemId}/attachments`)).body).toEqual([]);
        expect(await stored(orgId, created.id)).toBeNull();
        const again = await owner.delete(`/api/items/${itemId}/attachments/${created.id}`);
        expect(again.status).toBe(404);
        expect(again.body).toEqual({ error: 'not found', code: 'not_found' });
      });

      it('records an audit entry and an item.updated event for upload and delete', async () => {
        const itemId = await createItem();
        const created = (await upload(owner, itemId, { filename: 'log.txt' })).body;
        await owner.delete(`/api/items/${itemId}/attachments/${created.id}`);

        const timeline = await owner.get<{ action: string | null; data: unknown }[]>(
          `/api/items/${itemId}/timeline`,
        );
        const entries = timeline.body.filter((e) => e.action?.startsWith('attachment.'));
        expect(entries).toEqual([
          expect.objectContaining({
            action: 'attachment.create',
            data: { attachment_id: created.id, filename: 'log.txt' },
          }),
          expect.objectContaining({
            action: 'attachment.delete',
            data: { attachment_id: created.id, filename: 'log.txt' },
          }),
        ]);
        const events = await server.database.sql<{ type: string }[]>`
          select type from events where item_id = ${itemId} order by id`;
        expect(events.map((e) => e.type)).toEqual(['item.created', 'item.updated', 'item.updated']);
      });
    });

    describe('limits and validation', () => {
      it('accepts exactly 10 MiB and answers 413 with the limit one byte above', async () => {
        const itemId = await createItem();
        const ok = await upload(owner, itemId, { data: Buffer.alloc(10 * MiB, 7).toString('base64') });
        expect(ok.status).toBe(201);
        expect(ok.body.size).toBe(10 * MiB);

        const before = await filesOf(orgId);
        const res = await upload(owner, itemId, { data: Buffer.alloc(10 * MiB + 1, 7).toString('base64') });
        expect(res.status).toBe(413);
        expect(res.body).toEqual({ error: 'payload too large', code: 'payload_too_large', limit: 10485760 });
        expect(await filesOf(orgId)).toEqual(before);
        const list = await owner.get<Attachment[]>(`/api/items/${itemId}/attachments`);
        expect(list.body.map((a) => a.id)).toEqual([ok.body.id]);
      });

      it('answers 413 naming the file limit for a JSON body over the route body limit (15 MiB)', async () => {
        const itemId = await createItem();
        const res = await upload(owner, itemId, { data: 'A'.repeat(15 * MiB + 4) });
        expect(res.status).toBe(413);
        expect(res.body).toEqual({ error: 'payload too large', code: 'payload_too_large', limit: 10 * MiB });
      });

      it.each([
        ['data', { data: 'not base64!' }],
        ['data', { data: 'aGVsbG8gd29ybGQ=\n' }],
        ['data', { data: 'aGVs bG8=' }],
        ['data', { data: 'aGVsbG8-d29y+bGQ' }],
        ['data', { data: 'aGVsbG8=x' }],
        ['data', { data: 'aGVsb' }],
        ['data', { data: 'aGVsbA=' }],
        ['filename', { filename: '../x' }],
        ['filename', { filename: 'a\\b' }],
        ['filename', { filename: 'a\nb' }],
        ['filename', { filename: 'nul\u0000' }],
        ['filename', { filename: '' }],
        ['filename', { filename: 'x'.repeat(256) }],
        ['content_type', { content_type: 'not a mime' }],
        ['content_type', { content_type: 'text/' }],
        ['content_type', { content_type: 'pdf' }],
        ['content_type', { content_type: 'text/plain\r\nx-evil: 1' }],
        ['content_type', { content_type: `application/${'x'.repeat(250)}` }],
      ])('answers 400 naming %s for %j', async (field, body) => {
        const itemId = await createItem();
        const res = await upload(owner, itemId, body);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: 'invalid request',
          code: 'invalid_request',
          fields: { [field]: expect.any(String) },
        });
        expect((await owner.get(`/api/items/${itemId}/attachments`)).body).toEqual([]);
      });

      it('names every bad field at once, and rejects unknown fields', async () => {
        const itemId = await createItem();
        const res = await upload(owner, itemId, { filename: '../x', content_type: 'nope', data: '%%%' });
        expect(res.status).toBe(400);
        expect(Object.keys((res.body as unknown as { fields: object }).fields).sort()).toEqual([
          'content_type',
          'data',
          'filename',
        ]);
        const extra = await owner.post(`/api/items/${itemId}/attachments`, {
          filename: 'a',
          content_type: 'text/plain',
          data: '',
          size: 3,
        });
        expect(extra.status).toBe(400);
        expect(extra.body).toEqual({
          error: 'invalid request',
          code: 'invalid_request',
          fields: { size: 'unknown field' },
        });
      });

      it('answers 400 for ids that are not UUIDs, on the download route too', async () => {
        const itemId = await createItem();
        expect((await owner.get(`/api/items/${itemId}/attachments/nope/download`)).status).toBe(400);
        expect((await owner.delete(`/api/items/${itemId}/attachments/nope`)).status).toBe(400);
      });
    });

    describe('permissions and tenancy', () => {
      it('lets a viewer list and download but not upload or delete', async () => {
        const itemId = await createItem();
        const created = (await upload(owner, itemId)).body;

        const denied = await upload(viewer, itemId);
        expect(denied.status).toBe(403);
        expect(denied.body).toEqual({
          error: 'permission denied',
          code: 'permission_denied',
          required: 'items.write',
        });
        const notDeleted = await viewer.delete(`/api/items/${itemId}/attachments/${created.id}`);
        expect(notDeleted.status).toBe(403);
        expect(notDeleted.body).toEqual({
          error: 'permission denied',
          code: 'permission_denied',
          required: 'items.write',
        });

        expect((await viewer.get<Attachment[]>(`/api/items/${itemId}/attachments`)).body).toEqual([created]);
        const got = await download(viewer, itemId, created.id);
        expect(got.status).toBe(200);
        expect(got.bytes.toString()).toBe('hello');
      });

      it('answers 404 to another organization for list, upload, download and delete, changing nothing', async () => {
        const itemId = await createItem();
        const created = (await upload(owner, itemId)).body;
        const before = await filesOf(orgId);

        const list = await other.get(`/api/items/${itemId}/attachments`);
        const up = await upload(other, itemId);
        const down = await download(other, itemId, created.id);
        const del = await other.delete(`/api/items/${itemId}/attachments/${created.id}`);
        expect([list.status, up.status, down.status, del.status]).toEqual([404, 404, 404, 404]);
        expect(list.body).toEqual({ error: 'not found', code: 'not_found' });
        expect(up.body).toEqual({ error: 'not found', code: 'not_found' });
        expect(JSON.parse(down.bytes.toString())).toEqual({ error: 'not found', code: 'not_found' });
        expect(del.body).toEqual({ error: 'not found', code: 'not_found' });

        expect((await owner.get(`/api/items/${itemId}/attachments`)).body).toEqual([created]);
        expect((await download(owner, itemId, created.id)).status).toBe(200);
        expect(await filesOf(orgId)).toEqual(before);
        expect(await filesOf(otherOrgId)).toEqual([]);
      });

      it('answers 404 for an attachment addressed through another item, or unknown ids', async () => {
        const itemA = await createItem();
        const itemB = await createItem();
        const created = (await upload(owner, itemA)).body;
        const unknown = '0190a0b1-c2d3-7e4f-8a5b-6c7d8e9f0a1b';

        expect((await download(owner, itemB, created.id)).status).toBe(404);
        expect((await owner.delete(`/api/items/${itemB}/attachments/${created.id}`)).status).toBe(404);
        expect((await download(owner, itemA, unknown)).status).toBe(404);
        expect((await owner.get(`/api/items/${unknown}/attachments`)).status).toBe(404);
        expect((await upload(owner, unknown)).status).toBe(404);
        expect((await download(owner, unknown, created.id)).status).toBe(404);
        expect((await owner.get<Attachment[]>(`/api/items/${itemA}/attachments`)).body).toEqual([created]);
      });

      it('answers 401 with the bearer challenge to a download without a valid token', async () => {
        const itemId = await createItem();
        const created = (await upload(owner, itemId)).body;
        for (const client of [null, server.resource.as('not-a-real-token')]) {
          const res = await download(client, itemId, created.id);
          expect(res.status).toBe(401);
          expect(JSON.parse(res.bytes.toString())).toEqual({ error: 'unauthorized', code: 'unauthorized' });
          expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="beckon", resource_metadata=/);
        }
      });
    });

    describe('consistency of files and rows', () => {
      it('deletes the stored file when the transaction that writes the row fails', async () => {
        const itemId = await createItem();
        const sql = server.database.sql;
        await sql.unsafe(`
          create function fail_attachment() returns trigger language plpgsql as $$
          begin raise exception 'attachment insert refused by the test'; end $$;
          create trigger fail_attachment before insert on attachments
            for each row when (new.filename = 'refused.bin') execute function fail_attachment();`);
        try {
          const before = await filesOf(orgId);
          const res = await upload(owner, itemId, { filename: 'refused.bin' });
          expect(res.status).toBe(500);
          expect(await filesOf(orgId)).toEqual(before);
          expect(await storage.leftovers(server)).toEqual([]);
          expect((await owner.get(`/api/items/${itemId}/attachments`)).body).toEqual([]);
          const audit =
            await sql`select 1 from audit_entries where item_id = ${itemId} and action like 'attachment.%'`;
          expect(audit).toHaveLength(0);
        } finally {
          await sql.unsafe(`drop trigger fail_attachment on attachments; drop function fail_attachment();`);
        }
      });

      it('replays an upload sent twice with the same Idempotency-Key, storing one file', async () => {
        const itemId = await createItem();
        const before = (await filesOf(orgId)).length;
        const headers = { 'idempotency-key': `upload-${itemId}` };
        const first = await upload(owner, itemId, {}, headers);
        const second = await upload(owner, itemId, {}, headers);
        expect([first.status, second.status]).toEqual([201, 201]);
        expect(second.body).toEqual(first.body);
        expect(second.headers.get('idempotent-replayed')).toBe('true');
        expect((await filesOf(orgId)).length).toBe(before + 1);
        expect((await owner.get<Attachment[]>(`/api/items/${itemId}/attachments`)).body).toHaveLength(1);
      });

      it('documents every attachment route in the OpenAPI document, the download as binary', async () => {
        const doc = await server.resource.get<{
          paths: Record<string, Record<string, Record<string, unknown>>>;
        }>('/api/openapi.json');
        const paths = doc.body.paths;
        expect(Object.keys(paths['/items/{id}/attachments'] ?? {}).sort()).toEqual(['get', 'post']);
        expect(Object.keys(paths['/items/{id}/attachments/{aid}'] ?? {})).toEqual(['delete']);
        const post = paths['/items/{id}/attachments']?.post as { responses: Record<string, unknown> };
        expect(Object.keys(post.responses)).toEqual(
          expect.arrayContaining(['201', '400', '403', '404', '413', '503']),
        );
        const get = paths['/items/{id}/attachments/{aid}/download']?.get as {
          security: unknown;
          responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
        };
        expect(get.security).toEqual([{ bearer: [] }]);
        expect(get.responses['200']?.content?.['application/octet-stream']?.schema).toEqual({
          type: 'string',
          format: 'binary',
        });
        expect(Object.keys(get.responses).sort()).toEqual([
          '200',
          '400',
          '401',
          '403',
          '404',
          '429',
          '500',
          '503',
        ]);
      });
    });
  });
}
