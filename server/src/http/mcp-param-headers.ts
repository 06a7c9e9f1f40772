import type { FastifyRequest } from 'fastify';
import type { Method, RpcContext } from '../mcp/rpc';

type Tool = { name?: unknown; inputSchema?: { properties?: Record<string, Record<string, unknown>> } };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A header value as the client meant it: `=?base64?…?=` decoded (strict: the alphabet and its
 * padding, else null), anything else literally.
 */
function decoded(value: string): string | null {
  const wrapped = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!wrapped) return value;
  const data = wrapped[1] ?? '';
  if (data.length % 4 !== 0 || !BASE64.test(data)) return null;
  return Buffer.from(data, 'base64').toString('utf8');
}

/**
 * Custom headers of 2026-07-28 (SEP-2243): an argument whose property in the tool's input schema
 * carries `x-mcp-header: <Name>` is mirrored by the client in the header `Mcp-Param-<Name>`, so
 * that proxies can route on it. The header must then be present and equal to the argument. What
 * is wrong, or null; tools without such properties (all of Beckon's) have nothing to check.
 */
export async function paramHeaderMismatch(
  listTools: Method | undefined,
  ctx: RpcContext,
  request: FastifyRequest,
  params: Record<string, unknown>,
): Promise<string | null> {
  if (!listTools) return null;
  const { tools } = (await listTools(ctx, {})) as { tools?: Tool[] };
  const properties = tools?.find((tool) => tool.name === params.name)?.inputSchema?.properties ?? {};
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  for (const [name, schema] of Object.entries(properties)) {
    const header = schema['x-mcp-header'];
    if (typeof header !== 'string') continue;
    const value = args[name];
    if (value === undefined || value === null) continue;
    const sent = request.headers[`mcp-param-${header.toLowerCase()}`];
    if (typeof sent !== 'string') return `Mcp-Param-${header} header is missing for argument '${name}'`;
    const meant = decoded(sent.trim());
    if (meant === null) return `Mcp-Param-${header} header is not valid Base64`;
    if (meant !== String(value))
      return `Mcp-Param-${header} header value '${meant}' does not match body value '${String(value)}'`;
  }
  return null;
}
