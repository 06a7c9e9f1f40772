import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Env, isLoopbackHost } from '../env';

/** The origins a browser page may call /mcp from: the service's own, and MCP_ALLOWED_ORIGINS. */
export function allowedOrigins(env: Env): ReadonlySet<string> {
  const own = [env.APP_URL, env.RESOURCE_URL, env.ISSUER_URL].map((url) => new URL(url).origin);
  return new Set([...own, ...env.MCP_ALLOWED_ORIGINS]);
}

/**
 * A page on this machine calling the service on this machine: the request was addressed to a
 * loopback name (its Host) and comes from a loopback origin. A rebinding page keeps its own name
 * in both headers, and a service addressed by its public name never takes a loopback origin.
 */
function localToLocal(origin: string, host: string | undefined): boolean {
  const from = URL.parse(origin);
  const to = host ? URL.parse(`http://${host}`) : null;
  return from !== null && to !== null && isLoopbackHost(from.hostname) && isLoopbackHost(to.hostname);
}

/**
 * An `Origin` header that is present and not allowed is refused with 403 before anything else
 * runs (MCP Streamable HTTP, every revision: DNS rebinding). Clients outside a browser send none.
 */
export function refuseForeignOrigin(allowed: ReadonlySet<string>) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const origin = request.headers.origin;
    if (origin === undefined || allowed.has(origin) || localToLocal(origin, request.headers.host))
      return done();
    reply.code(403).send({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: `Forbidden: origin ${origin} is not allowed` },
    });
  };
}

/**
 * The check on every request to `/mcp` (any method), registered before the rate limit's hook so
 * that a foreign page is refused (403) before credentials are even looked at (401).
 */
export function registerMcpOriginCheck(app: FastifyInstance, env: Env): void {
  const refuse = refuseForeignOrigin(allowedOrigins(env));
  app.addHook('onRequest', (request, reply, done) => {
    const path = request.url.split('?', 1)[0];
    if (path === '/mcp') refuse(request, reply, done);
    else done();
  });
}
