import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * `beckon mcp`: an MCP server on stdin/stdout for hosts that launch tools as processes. It holds
 * no tools of its own: `tools/list` and `tools/call` go to the Beckon server's `POST /mcp` with the
 * bearer token, and its results and JSON-RPC errors (code and data) come back unchanged.
 */
export async function serveMcp(options: { url: string; token: string }): Promise<void> {
  const upstream = new Client({ name: 'beckon-cli', version: '0.1.0' });
  const endpoint = new URL(`${options.url.replace(/\/+$/, '')}/mcp`);
  await upstream.connect(
    new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: { authorization: `Bearer ${options.token}` } },
    }),
  );
  const info = upstream.getServerVersion();
  const instructions = upstream.getInstructions();
  const server = new Server(
    { name: info?.name ?? 'beckon', version: info?.version ?? '0.1.0' },
    { capabilities: { tools: {} }, ...(instructions ? { instructions } : {}) },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, (request) => upstream.callTool(request.params));

  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  const stdin = process.stdin;
  await server.connect(new StdioServerTransport());
  // The host ends the session by closing our stdin.
  stdin.once('end', () => void server.close());
  await closed;
  await upstream.close();
}
