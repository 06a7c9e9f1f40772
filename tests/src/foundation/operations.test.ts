import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDatabase, startEmbeddedPostgres, withDatabase } from '@beckon/db';
import { createDeps } from '@beckon/server/compose';
import { migrateAll } from '@beckon/server/database';
import { loadEnv } from '@beckon/server/env';
import { buildResourceApp } from '@beckon/server/http/resource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, freePort, HttpClient, startTestServer, type TestServer } from '../harness';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

describe('health, readiness and metrics on both processes', () => {
  it('GET /health answers the text ok', async () => {
    for (const client of [server.resource, server.auth]) {
      const res = await client.get('/health');
      expect(res.status).toBe(200);
      expect(res.text).toBe('ok');
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    }
  });

  it('GET /ready answers 200 while the database is up', async () => {
    for (const client of [server.resource, server.auth]) {
      expect((await client.get('/ready')).status).toBe(200);
    }
  });

  it('GET /metrics counts requests per route template and reports the pool and the job queue', async () => {
    const { token } = await new Factories(server.database.db).account();
    await server.resource.get('/api/me', { token });
    await server.resource.get('/api/me');
    const res = await server.resource.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text).toContain('http_requests_total{method="GET",route="/api/me",status="200"} 1');
    expect(res.text).toContain('http_requests_total{method="GET",route="/api/me",status="401"} 1');
    expect(res.text).toMatch(
      /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/me"\}/,
    );
    expect(res.text).toContain('beckon_db_up 1');
    expect(res.text).toContain('beckon_db_pool_max 10');
    expect(res.text).toMatch(/beckon_db_connections\{state="(idle|active)"\} [1-9]/);
    expect(res.text).toMatch(/beckon_jobs\{state="ready"\} \d+/);

    const auth = await server.auth.get('/metrics');
    expect(auth.text).toContain('http_request_duration_seconds');
    expect(auth.text).toContain('beckon_db_up 1');
    expect(auth.text).not.toContain('beckon_jobs{');
  });
});

describe('OpenAPI document', () => {
  it('is served at /api/openapi.json with the real error bodies', async () => {
    const res = await server.resource.get<{
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, unknown> };
    }>('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.1/);
    const responses = res.body.paths['/me']!.get!.responses;
    expect(responses['401']).toEqual({
      description: expect.any(String),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
    expect(res.body.components.schemas.PermissionDenied).toMatchObject({
      required: ['error', 'code', 'required'],
    });
    expect(JSON.stringify(res.body)).not.toContain('"issues"');
  });
});

// The API reference page (/api/docs) is tested with the OpenAPI clients: tests/src/openapi.

describe('/ready follows the database', () => {
  it('answers 503 while PostgreSQL is stopped and 200 again once it is back', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'beckon-ready-'));
    const port = await freePort();
    let pg = await startEmbeddedPostgres({ dataDir, port });
    await ensureDatabase(pg.url, 'beckon');
    const url = withDatabase(pg.url, 'beckon');
    await migrateAll(url);
    const env = loadEnv({ NODE_ENV: 'test', DATABASE_URL: url, DATA_DIR: dataDir });
    const { deps, close } = await createDeps('resource', env);
    const app = await buildResourceApp(deps);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const client = new HttpClient(
      `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    );
    try {
      expect((await client.get('/ready')).status).toBe(200);
      await pg.stop();
      const down = await client.get('/ready');
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ error: 'database unavailable', code: 'database_unavailable' });
      expect((await client.get('/health')).status).toBe(200);
      expect((await client.get('/metrics')).text).toContain('beckon_db_up 0');

      pg = await startEmbeddedPostgres({ dataDir, port });
      expect((await client.get('/ready')).status).toBe(200);
    } finally {
      await app.close();
      await close();
      await pg.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
