import type { Identity } from '../auth/identity';
import { can } from '../auth/permissions';
import { resolveIdentity } from '../auth/resolve-identity';
import { bearerChallenge } from '../deps';
import { AppError } from '../errors';
import { idempotent } from './idempotency';
import { publicProcedure } from './init';

/**
 * Requires a live credential; the identity (and so the tenant) comes from it, never from input.
 * A creation (meta `status: 201`) honours `Idempotency-Key` (decisions.md): the first answer is
 * kept and replayed for the same caller, operation and input. Not one whose answer holds a secret
 * shown once (`oneTimeSecret`): replaying it would mean storing that secret readable.
 */
export const authedProcedure = publicProcedure.use(async ({ ctx, meta, path, getRawInput, next }) => {
  const identity = ctx.identity ?? (ctx.token ? await resolveIdentity(ctx.deps, ctx.token) : null);
  if (!identity) throw AppError.unauthorized(bearerChallenge(ctx.deps.env));
  if (meta?.status !== 201 || meta.oneTimeSecret || ctx.idempotencyKey === null) {
    return next({ ctx: { identity } });
  }
  let result: Awaited<ReturnType<typeof next<{ identity: Identity }>>> | undefined;
  const data = await idempotent({ ...ctx, identity }, path, await getRawInput(), 201, async (sql) => {
    result = await next({ ctx: { identity, deps: { ...ctx.deps, sql } } });
    if (!result.ok) throw result.error;
    return result.data;
  });
  // A replay: the stored answer, as the procedure's own result would carry it.
  return (
    result ??
    ({ ok: true, data, ctx: { identity }, marker: 'middlewareMarker' } as unknown as typeof result & {})
  );
});

const requirePermission = (identity: Identity, permission: string) => {
  if (!can(identity.permissions, permission)) throw AppError.permissionDenied(permission);
};

/** Requires the named permission, matched with the specification's wildcard rules. */
export const permissionProcedure = (permission: string) =>
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

export const sessionPermissionProcedure = (permission: string) =>
  sessionProcedure.use(({ ctx, next }) => {
    requirePermission(ctx.identity, permission);
    return next();
  });

export { publicProcedure };
