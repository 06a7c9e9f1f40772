import { McpError } from '@modelcontextprotocol/sdk/types.js';

/** What a Streamable HTTP client must accept (406 otherwise). */
export const MCP_ACCEPT = 'application/json, text/event-stream';

export type JsonRpcAnswer<T> = {
  id: number;
  result?: T;
  error?: { code: number; message: string; data?: { fields?: Record<string, string> } };
};

/** One raw JSON-RPC request to /mcp (stateless: no initialize), at a revision when given. */
export async function mcpRequest<T>(
  baseUrl: string,
  token: string,
  method: string,
  params: unknown,
  protocol?: string,
): Promise<{ status: number; body: JsonRpcAnswer<T> }> {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: MCP_ACCEPT,
      ...(protocol ? { 'mcp-protocol-version': protocol } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: response.status, body: (await response.json()) as JsonRpcAnswer<T> };
}

/** The JSON-RPC error an official SDK client's call ends with (fails the test if it succeeds). */
export async function mcpError(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error('expected a JSON-RPC error');
}
