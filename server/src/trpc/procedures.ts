import { can, type Permission } from '@beckon/contracts/permissions';
import type { AnyTRPCProcedure } from '@trpc/server';
import type { Identity } from '../auth/identity';
import { resolveIdentity, resolveInboundToken } from '../auth/resolve-identity';
import { bearerChallenge } from '../deps';
import { AppError } from '../errors';
import type { Context } from './context';
import { idempotent } from './idempotency';
import { publicProcedure } from './init';

type ResolveIdentity = (ctx: Context, rawInput: () => Promise<unknown>) => Promise<Identity>;

/**
 * A procedure whose caller is resolved by `resolve`; the identity (and so the tenant) comes from
 * the credential, never from the input. A creation (meta `status: 201`) honours
 * `Idempotency-Key` (decisions.md): the first answer is kept and replayed for the same caller,
 * operation and input. Not one whose answer holds a secret shown once (`oneTimeSecret`):
 * replaying it would mean storing that secret readable.
 */
const identifiedProcedure = (resolve: ResolveIdentity) =>
  publicProcedure.use(async ({ ctx, meta, path, getRawInput, next }) => {
    const identity = await resolve(ctx, getRawInput);
    if (meta?.status !== 201 || meta.oneTimeSecret || ctx.idempotencyKey === null) {
      return next({ ctx: { identity } });
    }
    let result: Awaited<ReturnType<typeof next<{ identity: Identity }>>> | undefined;
    const data = await idempotent({ ...ctx, identity }, path, await getRawInput(), 201, async (sql) => {
      result = await next({ ctx: { identity, deps: { ...ctx.deps, sql } } });
      if (!result.ok) throw result.error;
      return result.data;
    });
    // A replay: the stored answer, as the procedure's own result would carry it (the marker is
    // how tRPC recognises a middleware's result; trpc-internals.test.ts guards it).
    return (
      result ??
      ({ ok: true, data, ctx: { identity }, marker: 'middlewareMarker' } as unknown as typeof result & {})
    );
  });

/** Requires a live bearer credential (session, API key or OAuth access token): else 401. */
export const authedProcedure = identifiedProcedure(async (ctx) => {
  const identity = ctx.identity ?? (ctx.token ? await resolveIdentity(ctx.deps, ctx.token) : null);
  if (!identity) throw AppError.unauthorized(bearerChallenge(ctx.deps.env));
  return identity;
});

/** authedProcedure's own middleware: every procedure built on it carries this one. */
const resolvesCredential = (authedProcedure._def.middlewares as unknown[]).at(-1);

/**
 * Whether a procedure needs a bearer credential (built on authedProcedure), so that a request
 * without one can be answered 401 before its body is read (http/api-rate-limit.ts).
 */
export const needsCredential = (procedure: AnyTRPCProcedure) =>
  // A built procedure keeps its builder's middlewares in `_def` (not in its public type).
  ((procedure._def as { middlewares?: unknown[] }).middlewares ?? []).includes(resolvesCredential);

/**
 * The caller is an inbound webhook, named by the `token` of the input (its URL): an unknown token
 * is a 404, checked before the rest of the input is validated.
 */
export const inboundWebhookProcedure = identifiedProcedure(async (ctx, rawInput) => {
  const input = await rawInput();
  const token = typeof input === 'object' && input !== null ? (input as { token?: unknown }).token : null;
  const identity =
    typeof token === 'string' && token.length <= 200 ? await resolveInboundToken(ctx.deps.sql, token) : null;
  if (!identity) throw AppError.notFound();
  return identity;
});

const requirePermission = (identity: Identity, permission: Permission) => {
  if (!can(identity.permissions, permission)) throw AppError.permissionDenied(permission);
};

/** Requires the named permission, matched with the specification's wildcard rules. */
export const permissionProcedure = (permission: Permission) =>
  authedProcedure.use(({ ctx, next }) => {
    requirePermission(ctx.identity, permission);
    return next();
  });

/**
 * Account operations (sign-out, organizations, keys, invitations) need a person's own session:
 * neither an agent's API key nor a token issued to a third-party OAuth client.
 */
export const sessionProcedure = authedProcedure.use(({ ctx, next }) => {
  if (ctx.identity.source !== 'session' || ctx.identity.clientId) {
    throw AppError.forbidden("this operation needs a signed-in user's session");
  }
  return next();
});

export const sessionPermissionProcedure = (permission: Permission) =>
  sessionProcedure.use(({ ctx, next }) => {
    requirePermission(ctx.identity, permission);
    return next();
  });

export { publicProcedure };
