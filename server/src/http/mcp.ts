import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps';
import { agentServer } from '../mcp/agent-server';
import { rejectLimitedMcp } from './api-rate-limit';
import { authenticate } from './authenticate';

/**
 * POST /mcp: the agent tool interface (MCP over Streamable HTTP, stateless: a server and a
 * transport per request, JSON answers). The bearer token (API key or OAuth access token) is
 * resolved first: without one, 401 and the challenge that points to the OAuth metadata.
 */
export function registerMcp(app: FastifyInstance, deps: Deps): void {
  app.post('/mcp', { preHandler: rejectLimitedMcp }, async (request, reply) => {
    const identity = await authenticate(deps, request);
    const version = request.headers['mcp-protocol-version'];
    const server = agentServer(deps, identity, typeof version === 'string' ? version : undefined);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  // Stateless server: no standalone stream or session to delete (events are at GET /mcp/sse).
  app.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    handler: async (_request, reply) =>
      reply
        .code(405)
        .header('allow', 'POST')
        .send({ error: 'method not allowed: use POST (events: GET /mcp/sse)' }),
  });
}
