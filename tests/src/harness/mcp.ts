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
  signal?: AbortSignal,
): Promise<{ status: number; body: JsonRpcAnswer<T> }> {
  const response = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    signal,
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

/** The newest, stateless revision: each request names its revision and the client's capabilities. */
export const STATELESS_REVISION = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type StatelessAnswer = {
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  error?: { code: number; message: string; data?: unknown };
};

export type StatelessOptions = {
  /** Whether the client declares the tasks extension. */
  tasks?: boolean;
  /** The client's elicitation capability (form, url or both). */
  elicitation?: Record<string, unknown>;
  headers?: Record<string, string>;
  meta?: Record<string, unknown>;
  path?: string;
  id?: number | string;
};

/** One 2026-07-28 request, headers mirrored from the body as a conforming client sends them. */
export async function statelessRequest(
  baseUrl: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
  options: StatelessOptions = {},
) {
  const named =
    method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : params.uri;
  const response = await fetch(`${baseUrl}${options.path ?? '/mcp'}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: MCP_ACCEPT,
      'mcp-protocol-version': STATELESS_REVISION,
      'mcp-method': method,
      ...(typeof named === 'string' ? { 'mcp-name': named } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: options.id ?? 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': STATELESS_REVISION,
          'io.modelcontextprotocol/clientInfo': { name: 'beckon-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': {
            ...(options.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
            ...(options.elicitation ? { elicitation: options.elicitation } : {}),
          },
          ...options.meta,
        },
      },
    }),
  });
  return { status: response.status, body: (await response.json()) as StatelessAnswer };
}
