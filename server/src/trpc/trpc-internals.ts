import type { Meta } from '@beckon/contracts/meta';
import type { AnyTRPCProcedure, AnyTRPCRouter } from '@trpc/server';
import type { Context } from './context';

// Beckon's hooks into tRPC v11 beyond its public API, kept here: the procedure list and call that
// the REST routes and the agent tools' direct caller are built from, and a middleware answering
// without `next`. The guard test beside this file fails naming the one an upgrade changed; the
// third hook is the synchronous-parse patch (patches/README.md), guarded there too.

/** How a tRPC v11 procedure is invoked (what its server-side caller does after the path lookup). */
type Invoke = (opts: {
  path: string;
  ctx: Context;
  type: 'query' | 'mutation';
  getRawInput: () => Promise<unknown>;
  signal: AbortSignal | undefined;
  batchIndex: number;
}) => Promise<unknown>;
/** A procedure called with a context and its raw input (what it parses). */
export type Call = (ctx: Context, input: unknown) => Promise<unknown>;
export type RestProcedure = {
  path: string;
  meta: Meta & { openapi: NonNullable<Meta['openapi']> };
  hasInput: boolean;
  call: Call;
  procedure: AnyTRPCProcedure;
  type: 'query' | 'mutation';
};

/** Calls the procedure at `path` as tRPC's server-side caller does once it has found it. */
function callOf(path: string, procedure: AnyTRPCProcedure): Call {
  const invoke = procedure as unknown as Invoke;
  const type = procedure._def.type as RestProcedure['type'];
  return (ctx, input) =>
    invoke({ path, ctx, type, getRawInput: async () => input, signal: undefined, batchIndex: 0 });
}

/** Every procedure that declares an `openapi` route, with its dotted tRPC path. */
export function restProcedures(router: AnyTRPCRouter): RestProcedure[] {
  const found: RestProcedure[] = [];
  for (const [path, procedure] of Object.entries(
    router._def.procedures as Record<string, AnyTRPCProcedure>,
  )) {
    const meta = procedure._def.meta as Meta | undefined;
    if (!meta?.openapi || meta.openapi.enabled === false) continue;
    found.push({
      path,
      meta: meta as RestProcedure['meta'],
      hasInput: procedure._def.inputs.length > 0,
      call: callOf(path, procedure),
      procedure,
      type: procedure._def.type as RestProcedure['type'],
    });
  }
  return found;
}

/**
 * What a middleware returns to answer in place of the procedure (an Idempotency-Key replay):
 * tRPC recognises a middleware's result by its marker.
 */
export const middlewareAnswer = <Result>(data: unknown, ctx: object): Result =>
  ({ ok: true, data, ctx, marker: 'middlewareMarker' }) as unknown as Result;

type Level = new (ctx: Context) => object;
/** A procedure under a level: the rest of its path from there, its whole path, the procedure. */
type Entry = [rest: string[], path: string, procedure: AnyTRPCProcedure];

/** One class per level of dotted paths: a procedure is a method, a namespace a getter. */
function levelClass(procedures: Entry[]): Level {
  const Level = class {
    constructor(readonly ctx: Context) {}
  };
  const below = new Map<string, Entry[]>();
  for (const [rest, path, procedure] of procedures) {
    const [key, ...deeper] = rest as [string, ...string[]];
    if (deeper.length > 0) {
      below.set(key, [...(below.get(key) ?? []), [deeper, path, procedure]]);
      continue;
    }
    const call = callOf(path, procedure);
    Object.defineProperty(Level.prototype, key, {
      value(this: { ctx: Context }, input: unknown) {
        return call(this.ctx, input);
      },
    });
  }
  for (const [key, deeper] of below) {
    const Below = levelClass(deeper);
    Object.defineProperty(Level.prototype, key, {
      get(this: { ctx: Context }) {
        return new Below(this.ctx);
      },
    });
  }
  return Level;
}

/**
 * A server-side caller without tRPC's proxies: `caller.items.get(input)` invokes the procedure
 * exactly as `createCaller`'s does (middlewares, input and output validation, errors), from plain
 * classes built once, so a call allocates two small objects instead of a proxy per property read.
 */
export function directCallerFactory<Caller>(router: AnyTRPCRouter): (ctx: Context) => Caller {
  const procedures = Object.entries(router._def.procedures as Record<string, AnyTRPCProcedure>);
  const Root = levelClass(procedures.map(([path, procedure]) => [path.split('.'), path, procedure]));
  return (ctx) => new Root(ctx) as Caller;
}
