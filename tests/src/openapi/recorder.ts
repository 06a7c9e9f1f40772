import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { RecordedExample, RecordedExamples } from '@beckon/server/http/openapi-examples';
import type { OpenAPI3 } from 'openapi-typescript';
import type { HttpClient } from '../harness';

/** The file the served documents read their examples from. */
export const EXAMPLES_FILE = fileURLToPath(
  new URL('../../../server/src/http/openapi-examples.json', import.meta.url),
);

export type Surface = 'resource' | 'auth';
const PREFIX: Record<Surface, string> = { resource: '/api', auth: '/auth' };

type Call = {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
};

/** Lists in an example keep their first two entries: enough to show the shape. */
function trimmed(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 2).map(trimmed);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trimmed(v)]));
  }
  return value;
}

type Parameter = { name: string; schema?: { type?: string } };

function operationOf(document: OpenAPI3, route: string) {
  const [method = '', path = ''] = route.split(' ');
  const item = document.paths?.[path] as Record<string, unknown> | undefined;
  const operation = item?.[method.toLowerCase()];
  if (!operation) throw new Error(`${route} is not in the document`);
  return operation as { responses?: Record<string, unknown>; parameters?: Parameter[] };
}

/** The 2xx status the document gives an operation. */
const successStatus = (document: OpenAPI3, route: string) =>
  Number(Object.keys(operationOf(document, route).responses ?? {}).find((s) => s.startsWith('2')));

/** Parameter values as their schemas type them (a query's `limit=20` is the integer 20). */
function typedParameters(document: OpenAPI3, route: string, values: Record<string, string>) {
  const schemas = new Map(operationOf(document, route).parameters?.map((p) => [p.name, p.schema?.type]));
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => {
      const type = schemas.get(name);
      return [
        name,
        type === 'integer' || type === 'number'
          ? Number(value)
          : type === 'boolean'
            ? value === 'true'
            : value,
      ];
    }),
  );
}

/**
 * Calls operations the way a client of the documents would, checks each answers its documented
 * success status, and keeps the first call of each operation as its example.
 */
export class ExampleRecorder {
  readonly recorded: RecordedExamples = { resource: {}, auth: {} };

  constructor(private readonly documents: Record<Surface, OpenAPI3>) {}

  /** `route` as the document names the operation, e.g. `POST /items/{id}/answer`. */
  async call<T = Record<string, unknown>>(
    surface: Surface,
    client: HttpClient,
    route: string,
    call: Call = {},
  ): Promise<T> {
    const [method = '', template = ''] = route.split(' ');
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(call.params?.[name] ?? ''),
    );
    const query = call.query ? `?${new URLSearchParams(call.query)}` : '';
    const res = await client.request<T>(method, `${PREFIX[surface]}${path}${query}`, {
      body: call.body,
      headers: call.headers,
    });
    const expected = successStatus(this.documents[surface], route);
    if (res.status !== expected) {
      throw new Error(`${route}: expected ${expected}, got ${res.status} ${res.text.slice(0, 300)}`);
    }
    const type = res.headers.get('content-type') ?? '';
    const json = type.includes('json') && !type.includes('jsonl');
    const parameters = typedParameters(this.documents[surface], route, { ...call.params, ...call.query });
    const example: RecordedExample = {
      ...(Object.keys(parameters).length ? { parameters } : {}),
      ...(call.body !== undefined ? { request: call.body } : {}),
      status: res.status,
      ...(json ? { response: trimmed(res.body) } : {}),
    };
    this.recorded[surface]![route] ??= example;
    return res.body;
  }

  /** `call` on one surface. */
  on(surface: Surface) {
    return <T = Record<string, unknown>>(client: HttpClient, route: string, call?: Call) =>
      this.call<T>(surface, client, route, call);
  }

  /** Operations of a document that no call has recorded. */
  missing(surface: Surface): string[] {
    const routes = Object.entries(this.documents[surface].paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item ?? {}).map((method) => `${method.toUpperCase()} ${path}`),
    );
    return routes.filter((route) => !this.recorded[surface]?.[route]);
  }

  /** Writes the examples file, operations sorted, so that a re-recording diffs by operation. */
  async save(): Promise<void> {
    const sorted = Object.fromEntries(
      Object.entries(this.recorded).map(([surface, routes]) => [
        surface,
        Object.fromEntries(Object.entries(routes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      ]),
    );
    await writeFile(EXAMPLES_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}
