import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ERROR_CODES } from '@beckon/contracts/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Factories, mcpRequest, startTestServer, type TestServer } from '../harness';
import { REPO_DIR } from '../packaging/tools';

let server: TestServer;
let agentKey: string;
let personToken: string;

beforeAll(async () => {
  server = await startTestServer();
  const f = new Factories(server.database.db);
  const { org, user, token } = await f.account('owner');
  personToken = token;
  agentKey = (await f.apiKey(org.id, user.id)).token;
});
afterAll(() => server?.close());

const unknownId = '0190f0f0-0000-7000-8000-000000000000';

describe('error codes', () => {
  it('docs/api.md lists exactly the codes of contracts/src/errors.ts, with their statuses', async () => {
    const api = await readFile(path.join(REPO_DIR, 'docs/api.md'), 'utf8');
    const section = api.slice(api.indexOf('### Error codes'));
    const documented = [...section.matchAll(/^\| `(\w+)` \| (\d{3}) \| .+ \|$/gm)].map(([, code, status]) => [
      code,
      Number(status),
    ]);
    expect(documented).toEqual(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]));
  });

  it('the same code over REST, tRPC and MCP', async () => {
    const rest = await server.resource.as(agentKey).get(`/api/items/${unknownId}`);
    expect(rest).toMatchObject({ status: 404, body: { error: 'not found', code: 'not_found' } });

    const trpc = await server.resource
      .as(agentKey)
      .get(`/trpc/items.get?input=${JSON.stringify({ id: unknownId })}`);
    expect(trpc.status).toBe(404);
    expect(trpc.body).toMatchObject({
      error: {
        message: 'not found',
        data: { code: 'NOT_FOUND', body: { error: 'not found', code: 'not_found' } },
      },
    });

    const mcp = await mcpRequest(server.resource.baseUrl, agentKey, 'tools/call', {
      name: 'service.get',
      arguments: { id: unknownId },
    });
    expect(mcp.body.error).toMatchObject({
      message: 'not found',
      data: { error: 'not found', code: 'not_found' },
    });
  });

  it('a refusal with its own code: an answer to an item that is not open', async () => {
    const asked = await server.resource.as(agentKey).post('/api/items', {
      title: 'Yes or no?',
      form: { id: 'f', fields: [{ id: 'ok', type: 'yesno', label: 'OK?' }] },
    });
    expect(asked.status).toBe(201);
    const { id } = asked.body as { id: string };
    const person = server.resource.as(personToken);
    expect((await person.post(`/api/items/${id}/dismiss`, {})).status).toBe(200);
    const refused = await person.post(`/api/items/${id}/answer`, { values: { ok: true } });
    expect(refused).toMatchObject({
      status: 409,
      body: { code: 'invalid_status', status: 'dismissed', error: 'cannot answer an item that is dismissed' },
    });
  });

  it('every error schema of the OpenAPI document requires its code', async () => {
    const document = (await server.resource.get('/api/openapi.json')).body as {
      components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
    };
    const schemas = document.components.schemas;
    for (const name of ['Error', 'InvalidRequest', 'PlanLimitExceeded', 'PermissionDenied', 'Conflict']) {
      expect(schemas[name]?.required, name).toEqual(expect.arrayContaining(['error', 'code']));
    }
    expect(schemas.Error?.properties?.code).toMatchObject({ enum: Object.keys(ERROR_CODES) });
  });
});
