import { can, type Permission } from '@beckon/contracts/permissions';
import type { FastifyRequest } from 'fastify';
import { bearerToken, type Identity } from '../auth/identity';
import { resolveIdentity } from '../auth/resolve-identity';
import { bearerChallenge, type Deps } from '../deps';
import { AppError } from '../errors';
import type {} from './request-state';

/**
 * For plain Fastify routes (downloads, streams, MCP): the bearer token resolved as procedures
 * resolve it, then the permission; failures are the same AppErrors (401 with the challenge, 403).
 */
export async function authenticate(
  deps: Deps,
  request: FastifyRequest,
  permission?: Permission,
): Promise<Identity> {
  const { authorization } = request.headers;
  const token = bearerToken(typeof authorization === 'string' ? authorization : undefined);
  // The rate limit of the resource process resolved it already (http/api-rate-limit.ts).
  const identity =
    request.identity !== undefined ? request.identity : token ? await resolveIdentity(deps, token) : null;
  if (!identity) throw AppError.unauthorized(bearerChallenge(deps.env));
  if (permission && !can(identity.permissions, permission)) throw AppError.permissionDenied(permission);
  return identity;
}
