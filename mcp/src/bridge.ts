import type { Readable, Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { version } from '../package.json';

export type BridgeOptions = {
  /** The Beckon resource server's origin, e.g. `https://beckon.example.com`. */
  url: string;
  /** An agent's API key (or another bearer token the server accepts). */
  token: string;
  /** Defaults to this process's stdin and stdout. */
  stdin?: Readable;
  stdout?: Writable;
};

/**
 * An MCP server on stdin/stdout for hosts that launch tools as processes. It holds no tools of its
 * own: `tools/list` and `tools/call` go to the Beckon server's `POST /mcp` with the bearer token,
 * and its results and JSON-RPC errors (code and data) come back unchanged. Resolves when the host
 * closes stdin.
 */
export async function serveMcp(options: BridgeOptions): Promise<void> {
  const upstream = new Client({ name: 'beckon-mcp', version });
  const endpoint = new URL(`${options.url.replace(/\/+$/, '')}/mcp`);
  await upstream.connect(
    new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: { authorization: `Bearer ${options.token}` } },
    }),
  );
  const info = upstream.getServerVersion();
  const instructions = upstream.getInstructions();
  const server = new Server(
    { name: info?.name ?? 'beckon', version: info?.version ?? version },
    { capabilities: { tools: {} }, ...(instructions ? { instructions } : {}) },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, (request) => upstream.callTool(request.params));

  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  await server.connect(new StdioServerTransport(stdin, stdout));
  // The host ends the session by closing our stdin.
  stdin.once('end', () => void server.close());
  await closed;
  await upstream.close();
}
