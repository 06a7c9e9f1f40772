import { randomUUID } from 'node:crypto';
import { appRouter, authRouter } from '@beckon/server/app-router';
import { restProcedures } from '@beckon/server/http/rest';
import type { AnyTRPCProcedure, AnyTRPCRouter } from '@trpc/server';
import { z } from 'zod';
import type { HttpClient, TestServer } from '../harness';

/** Which process serves a procedure: the resource API (/api, /trpc) or the account API (/auth). */
export type Side = 'resource' | 'auth';
export type Transport = 'rest' | 'trpc';

/**
 * One procedure as the sweep sees it, read from the router's own metadata: a route added to a
 * router is swept without anything written here.
 */
export type Target = {
  side: Side;
  /** The dotted tRPC path, e.g. `items.answer`. */
  path: string;
  type: 'query' | 'mutation';
  method: string;
  /** The REST path relative to the prefix, with `{param}` placeholders. */
  route: string;
  /** `meta.openapi.protect`: trpc-to-openapi documents a bearer requirement unless it is false. */
  protect: boolean;
  hasInput: boolean;
  pathParams: string[];
  /** Top-level input fields holding UUIDs (`format: uuid`, or a list of them), not path parameters. */
  uuidFields: string[];
  /** Top-level input fields of the input schema. */
  fields: Record<string, { format?: string }>;
};

const ROUTERS: Record<Side, AnyTRPCRouter> = { resource: appRouter, auth: authRouter };
const REST_PREFIX: Record<Side, string> = { resource: '/api', auth: '/auth' };
const TRPC_PREFIX: Record<Side, string> = { resource: '/trpc', auth: '/auth/trpc' };

type Property = { format?: string; items?: { format?: string }; anyOf?: Property[] };
type JsonSchema = { properties?: Record<string, Property> };

/** `uuid`, `uuid[]` for a list of UUIDs, or the property's other format. */
const formatOf = (p: Property): string | undefined =>
  p.format ??
  (p.items?.format ? `${p.items.format}[]` : undefined) ??
  p.anyOf?.map(formatOf).find((f) => f !== undefined);

function inputFields(procedure: AnyTRPCProcedure): Target['fields'] {
  const input = procedure._def.inputs[0];
  if (!input) return {};
  // Every procedure's input is a zod 4 schema (the contracts'); its JSON Schema names the UUIDs.
  const schema = z.toJSONSchema(input as z.ZodType, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, property]) => [name, { format: formatOf(property) }]),
  );
}

export function targets(side: Side): Target[] {
  const router = ROUTERS[side];
  const procedures = router._def.procedures as Record<string, AnyTRPCProcedure>;
  return restProcedures(router).map(({ path, meta, hasInput, type }) => {
    const route = meta.openapi.path;
    const pathParams = [...route.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const fields = inputFields(procedures[path]!);
    return {
      side,
      path,
      type,
      method: meta.openapi.method,
      route,
      protect: meta.openapi.protect !== false,
      hasInput,
      pathParams,
      uuidFields: Object.keys(fields).filter(
        (f) => fields[f]!.format?.startsWith('uuid') && !pathParams.includes(f),
      ),
      fields,
    };
  });
}

type OpenApiOperation = {
  operationId?: string;
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; schema?: { format?: string } }>;
};
export type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>> };

/**
 * The routes an OpenAPI document describes that no procedure serves (written by hand, such as the
 * attachment download): swept over REST like the others, from what the document says of them.
 */
export function documentedOnly(side: Side, document: OpenApiDocument, procedures: Target[]): Target[] {
  const served = new Set(procedures.map((t) => `${t.method} ${t.route}`));
  return Object.entries(document.paths).flatMap(([route, operations]) =>
    Object.entries(operations)
      .filter(([method]) => !served.has(`${method.toUpperCase()} ${route}`))
      .map(([method, op]): Target => {
        const params = (op.parameters ?? []).filter((p) => p.in === 'path');
        return {
          side,
          path: op.operationId ?? `${method} ${route}`,
          type: method === 'get' ? 'query' : 'mutation',
          method: method.toUpperCase(),
          route,
          protect: (op.security?.length ?? 0) > 0,
          hasInput: params.length > 0,
          pathParams: params.map((p) => p.name),
          uuidFields: [],
          fields: Object.fromEntries(params.map((p) => [p.name, { format: p.schema?.format }])),
        };
      }),
  );
}

/** Procedures without a REST route: the sweep reads routes from the meta, so these would escape it. */
export function withoutRoute(side: Side): string[] {
  const routed = new Set(restProcedures(ROUTERS[side]).map((p) => p.path));
  return Object.keys(ROUTERS[side]._def.procedures).filter((path) => !routed.has(path));
}

/** Values that fill the path parameters when the input's content does not matter (401, 403). */
export function placeholderInput(target: Target): Record<string, string> {
  return Object.fromEntries(
    target.pathParams.map((p) => [
      p,
      target.fields[p]?.format === 'uuid' ? randomUUID() : 'sweep-placeholder',
    ]),
  );
}

/** An answer normalized across transports: the status, the REST body (tRPC: `error.data.body`). */
export type Answer = { status: number; body: unknown; headers: Headers; text: string };

export const describeTarget = (t: Target) => `${t.method} ${REST_PREFIX[t.side]}${t.route} (${t.path})`;

async function callRest(server: TestServer, t: Target, token: string | null, input: Record<string, unknown>) {
  const client: HttpClient = (t.side === 'resource' ? server.resource : server.auth).as(token);
  const rest = { ...input };
  const url = t.route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = String(rest[name]);
    delete rest[name];
    return encodeURIComponent(value);
  });
  const fromBody = t.method !== 'GET' && t.method !== 'DELETE';
  const query = fromBody ? '' : new URLSearchParams(rest as Record<string, string>).toString();
  const full = `${REST_PREFIX[t.side]}${url}${query ? `?${query}` : ''}`;
  return client.request(t.method, full, fromBody ? { body: rest } : {});
}

async function callTrpc(server: TestServer, t: Target, token: string | null, input: Record<string, unknown>) {
  const client = (t.side === 'resource' ? server.resource : server.auth).as(token);
  const base = `${TRPC_PREFIX[t.side]}/${t.path}`;
  const res =
    t.type === 'query'
      ? await client.get(t.hasInput ? `${base}?input=${encodeURIComponent(JSON.stringify(input))}` : base)
      : // As tRPC's own client sends a mutation: JSON, without a body when there is no input.
        await client.request('POST', base, {
          body: t.hasInput ? input : undefined,
          headers: { 'content-type': 'application/json' },
        });
  const body = res.body as {
    result?: { data: unknown };
    error?: { data?: { httpStatus?: number; body?: unknown; stack?: string } };
  };
  if (body?.error?.data?.stack) throw new Error(`tRPC ${t.path}: the error carries a stack trace`);
  if (body?.error) {
    // The tRPC error carries the REST status and body (decisions.md): they must agree with HTTP's.
    if (body.error.data?.httpStatus !== res.status) {
      throw new Error(
        `tRPC ${t.path}: HTTP ${res.status} but error.data.httpStatus ${body.error.data?.httpStatus}`,
      );
    }
    return { ...res, body: body.error.data.body };
  }
  return { ...res, body: body?.result?.data };
}

export function caller(server: TestServer, transport: Transport) {
  return (t: Target, token: string | null, input: Record<string, unknown>): Promise<Answer> =>
    transport === 'rest' ? callRest(server, t, token, input) : callTrpc(server, t, token, input);
}
export type Call = ReturnType<typeof caller>;

export const CHALLENGE =
  'Bearer realm="beckon", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource"';

/** `fn` over `items`, at most `limit` at a time, answers in the order of `items`. */
export async function inPool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
