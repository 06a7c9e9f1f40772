import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { s3Storage } from '@beckon/server/storage/s3-storage';
import type { StoredFile } from '@beckon/server/storage/storage';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Factories,
  type FakeS3,
  freePort,
  type HttpClient,
  startFakeS3,
  startTestServer,
  type TestServer,
} from '../harness';
import { type Attachment, attachmentsSuite } from './attachments-suite';

let s3: FakeS3;
beforeAll(async () => {
  s3 = await startFakeS3();
});
afterAll(() => s3?.close());

/** The same rules with STORAGE=s3: objects `attachments/<org_id>/<attachment_id>` in the fake's bucket. */
attachmentsSuite({
  name: 's3',
  env: () => s3.env(),
  filesOf: async (_server, orgId) => s3.keys(`attachments/${orgId}/`).map((key) => key.split('/')[2] ?? ''),
  bytesOf: async (_server, orgId, attachmentId) => s3.object(`attachments/${orgId}/${attachmentId}`),
  // A PutObject stores the whole object or nothing: there is no half-written state to look for.
  leftovers: async () => [],
});

describe('attachments in a bucket', () => {
  let first: TestServer;
  let owner: HttpClient;
  let orgId: string;
  let token: string;

  beforeAll(async () => {
    first = await startTestServer({ env: s3.env() });
    const account = await new Factories(first.database.db).account('owner');
    orgId = account.org.id;
    token = account.token;
    owner = first.resource.as(token);
  });
  afterAll(() => first?.close());

  const createItem = async (client = owner) => {
    const res = await client.post<{ id: string }>('/api/items', { title: 'With files' });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const upload = (client: HttpClient, itemId: string, bytes: Buffer, filename = 'report.pdf') =>
    client.post<Attachment & { error?: string }>(`/api/items/${itemId}/attachments`, {
      filename,
      content_type: 'application/pdf',
      data: bytes.toString('base64'),
    });
  const download = async (server: TestServer, itemId: string, attachmentId: string) => {
    const url = `${server.resource.baseUrl}/api/items/${itemId}/attachments/${attachmentId}/download`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const putsOf = (key: string) => s3.calls.filter((c) => c.method === 'PUT' && c.key === key);

  it('stores each file as one object attachments/<org_id>/<attachment_id>, written by one PutObject', async () => {
    const itemId = await createItem();
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const res = await upload(owner, itemId, bytes);
    expect(res.status).toBe(201);
    const key = `attachments/${orgId}/${res.body.id}`;
    expect(s3.object(key)?.equals(bytes)).toBe(true);
    expect(putsOf(key)).toHaveLength(1);
    expect(res.body.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('serves from a second resource process on the same database a file the first one stored', async () => {
    const second = await startTestServer({ database: first.database, env: s3.env() });
    try {
      const itemId = await createItem();
      const bytes = randomBytes(256 * 1024);
      const created = (await upload(owner, itemId, bytes, 'plan été.pdf')).body;

      const fromFirst = await download(first, itemId, created.id);
      const fromSecond = await download(second, itemId, created.id);
      expect(fromSecond.status).toBe(200);
      expect(fromSecond.bytes.equals(bytes)).toBe(true);
      expect(Object.fromEntries(fromSecond.headers)).toMatchObject({
        'content-type': 'application/pdf',
        'content-length': String(bytes.length),
        'content-disposition': `attachment; filename="plan ete.pdf"; filename*=UTF-8''plan%20%C3%A9t%C3%A9.pdf`,
        'x-content-type-options': 'nosniff',
        'cache-control': 'private, no-store',
      });
      for (const name of [
        'content-type',
        'content-length',
        'content-disposition',
        'x-content-type-options',
        'cache-control',
      ]) {
        expect(fromSecond.headers.get(name)).toBe(fromFirst.headers.get(name));
      }

      // Deleted through the second process: the object goes, and the first one answers 404.
      const deleted = await second.resource
        .as(token)
        .delete(`/api/items/${itemId}/attachments/${created.id}`);
      expect(deleted.status).toBe(200);
      expect(s3.object(`attachments/${orgId}/${created.id}`)).toBeNull();
      expect((await download(first, itemId, created.id)).status).toBe(404);
    } finally {
      await second.close();
    }
  });

  it('sends nothing to the bucket for a file over 10 MiB or a body over the route limit', async () => {
    const itemId = await createItem();
    const keysBefore = s3.keys();
    const callsBefore = s3.calls.length;
    const over = await upload(owner, itemId, Buffer.alloc(10 * 1024 * 1024 + 1, 1));
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ error: 'payload too large', code: 'payload_too_large', limit: 10485760 });
    const body = await owner.post(`/api/items/${itemId}/attachments`, {
      filename: 'big.bin',
      content_type: 'application/octet-stream',
      data: 'A'.repeat(15 * 1024 * 1024 + 4),
    });
    expect(body.status).toBe(413);
    expect(s3.calls.length).toBe(callsBefore);
    expect(s3.keys()).toEqual(keysBefore);
    expect((await owner.get(`/api/items/${itemId}/attachments`)).body).toEqual([]);
  });

  it('answers 503 storage unavailable while the store answers 500, storing no row, and recovers', async () => {
    const itemId = await createItem();
    const kept = (await upload(owner, itemId, Buffer.from('kept'))).body;
    const keysBefore = s3.keys();
    s3.failWith(500);
    try {
      const up = await upload(owner, itemId, Buffer.from('refused'));
      expect(up.status).toBe(503);
      expect(up.body).toEqual({ error: 'storage unavailable', code: 'storage_unavailable' });
      expect(up.headers.get('retry-after')).toBe('5');
      const down = await download(first, itemId, kept.id);
      expect(down.status).toBe(503);
      expect(JSON.parse(down.bytes.toString())).toEqual({
        error: 'storage unavailable',
        code: 'storage_unavailable',
      });
      expect(down.headers.get('retry-after')).toBe('5');
    } finally {
      s3.failWith(null);
    }
    expect(s3.keys()).toEqual(keysBefore);
    expect((await owner.get<Attachment[]>(`/api/items/${itemId}/attachments`)).body).toEqual([kept]);
    const audit = await first.database.sql`
      select 1 from audit_entries where item_id = ${itemId} and action = 'attachment.create'`;
    expect(audit).toHaveLength(1);

    const again = await upload(owner, itemId, Buffer.from('accepted'));
    expect(again.status).toBe(201);
    expect((await download(first, itemId, again.body.id)).bytes.toString()).toBe('accepted');
  });

  it('cuts a download short, never passing half a file for a whole one, when the store drops it', async () => {
    const itemId = await createItem();
    const bytes = randomBytes(512 * 1024);
    const created = (await upload(owner, itemId, bytes)).body;
    s3.cutBodiesAfter(100 * 1024);
    try {
      const url = `${first.resource.baseUrl}/api/items/${itemId}/attachments/${created.id}/download`;
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      // The response ends before its announced length: the client sees an error, not a short file.
      await expect(res.arrayBuffer()).rejects.toThrow();
    } finally {
      s3.cutBodiesAfter(null);
    }
    const again = await download(first, itemId, created.id);
    expect(again.status).toBe(200);
    expect(again.bytes.equals(bytes)).toBe(true);
  });

  it('answers 503 when the store cannot be reached, while /ready stays ready', async () => {
    const closed = await freePort();
    const cut = await startTestServer({
      database: first.database,
      env: s3.env({ S3_ENDPOINT: `http://127.0.0.1:${closed}` }),
    });
    try {
      const itemId = await createItem();
      const stored = (await upload(owner, itemId, Buffer.from('in the bucket'))).body;
      const client = cut.resource.as(token);

      const up = await upload(client, itemId, Buffer.from('nowhere to go'));
      expect(up.status).toBe(503);
      expect(up.body).toEqual({ error: 'storage unavailable', code: 'storage_unavailable' });
      const down = await download(cut, itemId, stored.id);
      expect(down.status).toBe(503);
      expect(JSON.parse(down.bytes.toString())).toEqual({
        error: 'storage unavailable',
        code: 'storage_unavailable',
      });
      expect((await client.get<Attachment[]>(`/api/items/${itemId}/attachments`)).body).toEqual([stored]);

      const ready = await cut.resource.get('/ready');
      expect(ready.status).toBe(200);
    } finally {
      await cut.close();
    }
  });
});

describe('the S3 storage itself', () => {
  const storage = () =>
    s3Storage(
      {
        bucket: s3.bucket,
        region: 'us-east-1',
        endpoint: s3.url,
        forcePathStyle: true,
        prefix: 'unit/',
        credentials: {
          accessKeyId: s3.env().S3_ACCESS_KEY_ID ?? '',
          secretAccessKey: s3.env().S3_SECRET_ACCESS_KEY ?? '',
        },
      },
      pino({ level: 'silent' }),
    );
  const read = async (file: StoredFile | null) =>
    file ? { size: file.size, bytes: await buffer(file.body) } : null;

  it('puts a stream of many chunks, gets it back with its size, deletes it, and tolerates missing keys', async () => {
    const store = storage();
    const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(32 * 1024, i));
    const whole = Buffer.concat(chunks);
    await store.put('org/one', Readable.from(chunks), whole.length);
    expect(s3.object('unit/org/one')?.equals(whole)).toBe(true);
    const got = await read(await store.get('org/one'));
    expect(got?.size).toBe(whole.length);
    expect(got?.bytes.equals(whole)).toBe(true);
    await store.delete('org/one');
    expect(await store.get('org/one')).toBeNull();
    await expect(store.delete('org/one')).resolves.toBeUndefined();
  });

  it('refuses an invalid key without sending anything', async () => {
    const store = storage();
    const before = s3.calls.length;
    for (const key of ['../x', 'a//b', '.hidden', 'a b']) {
      await expect(store.put(key, Readable.from([Buffer.from('x')]), 1)).rejects.toThrow(
        /invalid storage key/,
      );
      await expect(store.get(key)).rejects.toThrow(/invalid storage key/);
    }
    expect(s3.calls.length).toBe(before);
  });

  it('stores nothing when the stream fails halfway, keeping the object that was there', async () => {
    const store = storage();
    await store.put('org/kept', Readable.from([Buffer.from('before')]), 6);
    async function* failing() {
      yield Buffer.alloc(64 * 1024, 1);
      throw new Error('the request body broke off');
    }
    await expect(store.put('org/kept', Readable.from(failing()), 1024 * 1024)).rejects.toMatchObject({
      status: 503,
      body: { error: 'storage unavailable', code: 'storage_unavailable' },
    });
    await expect(store.put('org/new', Readable.from(failing()), 1024 * 1024)).rejects.toMatchObject({
      status: 503,
    });
    expect(s3.object('unit/org/kept')?.toString()).toBe('before');
    expect(s3.object('unit/org/new')).toBeNull();
  });
});
