import { resolveIdentity } from '../auth/identity';
import { can } from '../auth/permissions';
import { bearerChallenge } from '../deps';
import { AppError } from '../errors';
import { publicProcedure } from './init';

/** Requires a live credential; the identity (and so the tenant) comes from it, never from input. */
export const authedProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const identity =
    ctx.identity ??
    (ctx.token ? await resolveIdentity(ctx.deps.sql, ctx.token, ctx.deps.identityCache) : null);
  if (!identity) throw AppError.unauthorized(bearerChallenge(ctx.deps.env));
  return next({ ctx: { ...ctx, identity } });
});

/** Requires the named permission, matched with the specification's wildcard rules. */
export const permissionProcedure = (permission: string) =>
  authedProcedure.use(({ ctx, next }) => {
    if (!can(ctx.identity.permissions, permission)) throw AppError.permissionDenied(permission);
    return next();
  });

export { publicProcedure };
