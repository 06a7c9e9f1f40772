import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import { PROTECTED_RESOURCE_PATH, protectedResourceMetadata } from '../oauth/protected-resource';

/**
 * GET /.well-known/oauth-protected-resource (RFC 9728), served by both processes: the resource
 * process's 401 challenge points at it, and the specification lists it on the authorization one.
 */
export function registerProtectedResourceMetadata(app: FastifyInstance, deps: Deps): void {
  const metadata = protectedResourceMetadata(deps.env);
  app.get(PROTECTED_RESOURCE_PATH, async (_request, reply) =>
    reply.header('access-control-allow-origin', '*').header('cache-control', 'max-age=300').send(metadata),
  );
}
