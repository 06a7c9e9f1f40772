import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Env } from '../env';

/** The origins a browser page may call /mcp from: the service's own, and MCP_ALLOWED_ORIGINS. */
export function allowedOrigins(env: Env): ReadonlySet<string> {
  const own = [env.APP_URL, env.RESOURCE_URL, env.ISSUER_URL].map((url) => new URL(url).origin);
  return new Set([...own, ...env.MCP_ALLOWED_ORIGINS]);
}

/**
 * An `Origin` header that is present and not allowed is refused with 403 before anything else
 * runs (MCP Streamable HTTP, every revision: DNS rebinding). Clients outside a browser send none.
 */
export function refuseForeignOrigin(allowed: ReadonlySet<string>) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const origin = request.headers.origin;
    if (origin === undefined || allowed.has(origin)) return done();
    reply.code(403).send({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: `Forbidden: origin ${origin} is not allowed` },
    });
  };
}
