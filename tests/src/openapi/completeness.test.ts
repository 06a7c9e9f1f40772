import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { THROWN } from '@beckon/server/http/openapi-errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness';

const run = promisify(execFile);
const TESTS_DIR = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = fileURLToPath(new URL('./redocly.yaml', import.meta.url));

type Media = { example?: unknown; schema?: unknown };
type Operation = {
  operationId?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; example?: unknown }[];
  requestBody?: { content?: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media>; headers?: Record<string, unknown> }>;
};
type Document = {
  info: { license?: { name: string } };
  paths: Record<string, Record<string, Operation>>;
};
type Problem = { ruleId: string; severity: string; message: string; location: { pointer: string }[] };

let server: TestServer;
let dir: string;
const documents: Record<string, Document> = {};

beforeAll(async () => {
  server = await startTestServer();
  documents.resource = (await server.resource.get<Document>('/api/openapi.json')).body;
  documents.auth = (await server.auth.get<Document>('/auth/openapi.json')).body;
  dir = await mkdtemp(path.join(tmpdir(), 'beckon-openapi-'));
});
afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Redocly CLI (the npm package) on a document, with tests/src/openapi/redocly.yaml. */
async function lint(name: string, document: unknown): Promise<Problem[]> {
  const file = path.join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(document));
  const bin = path.join(TESTS_DIR, 'node_modules', '.bin', 'redocly');
  const result = await run(bin, ['lint', '--config', CONFIG, '--format', 'json', file], {
    cwd: TESTS_DIR,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return (JSON.parse(result.stdout) as { problems: Problem[] }).problems;
}

const errorsOf = (problems: Problem[]) =>
  problems
    .filter((p) => p.severity === 'error')
    .map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);

const operations = (document: Document) =>
  Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item).map(([method, op]) => ({ route: `${method.toUpperCase()} ${route}`, op })),
  );

describe.each(['resource', 'auth'])('the %s document', (surface) => {
  it('passes Redocly CLI with no errors (examples fit their schemas, security on every operation)', async () => {
    expect(errorsOf(await lint(surface, documents[surface]))).toEqual([]);
  });

  it('has an example request and response on every operation, and a licence', () => {
    const document = documents[surface]!;
    expect(document.info.license?.name).toBe('MIT');
    const missing: string[] = [];
    for (const { route, op } of operations(document)) {
      const body = op.requestBody?.content?.['application/json'];
      if (body && body.example === undefined) missing.push(`${route} request`);
      for (const parameter of op.parameters ?? []) {
        if (parameter.in === 'path' && parameter.example === undefined)
          missing.push(`${route} ${parameter.name}`);
      }
      const [status, success] = Object.entries(op.responses).find(([s]) => s.startsWith('2')) ?? [];
      const json = success?.content?.['application/json'];
      if (json && json.example === undefined) missing.push(`${route} ${status} response`);
      if (!Array.isArray(op.security)) missing.push(`${route} security`);
    }
    expect(missing).toEqual([]);
  });
});

describe('documented errors', () => {
  it('names only operations that exist', () => {
    const routes = new Set(
      [...operations(documents.resource!), ...operations(documents.auth!)].map((o) => o.route),
    );
    expect(Object.keys(THROWN).filter((route) => !routes.has(route))).toEqual([]);
  });

  it('lists what the middleware and the service answer, each with its schema', () => {
    const op = (route: string) => {
      const [method = '', path = ''] = route.split(' ');
      return documents.resource!.paths[path]![method.toLowerCase()]!;
    };
    const schemaOf = (route: string, status: string) =>
      (op(route).responses[status]?.content?.['application/json']?.schema as { $ref?: string })?.$ref;
    // An answer: authentication, the rate limit, the id, the body, the status machine, the form.
    expect(Object.keys(op('POST /items/{id}/answer').responses).sort()).toEqual(
      ['200', '400', '401', '403', '404', '409', '413', '415', '422', '429', '500', '503'].sort(),
    );
    expect(schemaOf('POST /items/{id}/answer', '409')).toBe('#/components/schemas/Conflict');
    expect(schemaOf('POST /items/{id}/answer', '422')).toBe('#/components/schemas/ValidationFailed');
    // A creation honours Idempotency-Key: the header, its replay marker, its 409 and 422.
    const create = op('POST /items');
    expect(create.parameters?.map((p) => `${p.in}:${p.name}`)).toContain('header:Idempotency-Key');
    expect(create.responses['201']?.headers).toHaveProperty('Idempotent-Replayed');
    expect(schemaOf('POST /items', '409')).toBe('#/components/schemas/Conflict');
    expect(schemaOf('POST /items', '422')).toBe('#/components/schemas/Error');
    expect(op('POST /items').responses['429']?.headers).toHaveProperty('Retry-After');
    // A public route answers no 401, and says it needs no credential.
    expect(Object.keys(op('GET /push/config').responses)).not.toContain('401');
    expect(op('GET /push/config').security).toEqual([]);
    expect(op('POST /webhooks/inbound/{token}').security).toEqual([]);
    expect(Object.keys(op('GET /items/{id}').responses)).not.toContain('409');
    expect(op('GET /items/{id}').parameters?.map((p) => p.name)).not.toContain('Idempotency-Key');
  });

  it('a linted example that no longer fits its schema is an error (the lint can fail)', async () => {
    const broken = structuredClone(documents.resource!);
    const media = broken.paths['/items/{id}']!.get!.responses['200']!.content!['application/json']!;
    media.example = { ...(media.example as object), status: 'no such status' };
    const errors = errorsOf(await lint('broken', broken));
    expect(errors).toEqual([expect.stringContaining('no-invalid-media-type-examples')]);
  });
});
