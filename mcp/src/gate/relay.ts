import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Approvals } from './approvals';
import { decideCall, type McpGatePolicy, type ToolHints } from './policy';

type Id = string | number;
type Message = JSONRPCMessage & {
  id?: Id;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
};
type Tool = { name: string; annotations?: ToolHints };

const INTERNAL = 'beckon-gate:';
const MESSAGE_MAX = 20_000;

export type RelayOptions = {
  /** The MCP client (host) side: this process's stdio. */
  client: Transport;
  /** The wrapped server: a child process's stdio, or a Streamable HTTP endpoint. */
  server: Transport & { setProtocolVersion?: (version: string) => void };
  policy: McpGatePolicy;
  approvals: Approvals | null;
  log: (text: string) => void;
};

/**
 * Relays every message between an MCP client and the wrapped server, unchanged, except a
 * `tools/call` the policy holds: it goes on once a person allowed it; refused, the client gets
 * a tool result with `isError` and the reason, which the model reads. Resolves when either side closes.
 */
export function relay(options: RelayOptions): Promise<void> {
  const { client, server, policy, approvals, log } = options;
  const hints = new Map<string, ToolHints | undefined>();
  const listing = new Set<Id>();
  const held = new Map<Id, AbortController>();
  const internal = new Map<string, (message: Message) => void>();
  let serverName = 'the wrapped server';
  let initializing: Id | undefined;
  let next = 0;

  const toServer = (message: Message) =>
    void server.send(message).catch((error: Error) => log(error.message));
  const toClient = (message: Message) =>
    void client.send(message).catch((error: Error) => log(error.message));
  const remember = (tools: Tool[]) => {
    for (const tool of tools) hints.set(tool.name, tool.annotations);
  };

  /** The wrapped server's tool list, asked by the gate itself (the client never listed them). */
  async function listTools(): Promise<void> {
    let cursor: string | undefined;
    do {
      const id = `${INTERNAL}${next++}`;
      const answer = new Promise<Message>((resolve) => internal.set(id, resolve));
      toServer({ jsonrpc: '2.0', id, method: 'tools/list', params: cursor ? { cursor } : {} } as Message);
      const { result } = (await answer) as { result?: { tools?: Tool[]; nextCursor?: string } };
      remember(result?.tools ?? []);
      cursor = result?.nextCursor;
    } while (cursor);
  }

  async function gateCall(message: Message): Promise<void> {
    const id = message.id as Id;
    const name = String(message.params?.name ?? '');
    const args = (message.params?.arguments ?? {}) as Record<string, unknown>;
    if (policy.default === 'annotations' && !hints.has(name)) await listTools().catch(() => {});
    const toolHints = hints.get(name);
    const verdict = decideCall(policy, name, toolHints);
    let allow = verdict.action === 'allow';
    let reason = verdict.reason;
    if (verdict.action === 'ask') {
      const controller = new AbortController();
      held.set(id, controller);
      try {
        if (!approvals) throw new Error('BECKON_URL and BECKON_TOKEN are not both set');
        const decision = await approvals.decide({
          rule: verdict.rule,
          title: callTitle(name, args, serverName),
          message: callMessage(name, args, serverName, verdict.rule, toolHints),
          // MCP's default for a tool that is not read-only: destructive.
          priority: toolHints?.readOnlyHint || toolHints?.destructiveHint === false ? 3 : 4,
          timeoutSeconds: policy.timeout_seconds,
          grantMinutes: policy.grant_minutes,
          ...(policy.assignees ? { assignees: policy.assignees } : {}),
          ...(policy.channel ? { channel: policy.channel } : {}),
          metadata: { tool: name, server: serverName },
          signal: controller.signal,
        });
        ({ allow, reason } = decision);
      } catch (error) {
        if (controller.signal.aborted) return; // the client cancelled: it expects no answer
        allow = false;
        reason = `Beckon could not be asked (${(error as Error).message}): denied`;
      } finally {
        held.delete(id);
      }
    }
    if (allow) return toServer(message);
    toClient({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text: reason }], isError: true },
    } as Message);
  }

  client.onmessage = (raw) => {
    const message = raw as Message;
    if (message.method === 'tools/call' && message.id !== undefined) {
      void gateCall(message);
      return;
    }
    if (message.method === 'notifications/cancelled') {
      const controller = held.get(message.params?.requestId as Id);
      if (controller) return controller.abort();
    }
    if (message.method === 'tools/list' && message.id !== undefined) listing.add(message.id);
    if (message.method === 'initialize' && message.id !== undefined) initializing = message.id;
    toServer(message);
  };

  server.onmessage = (raw) => {
    const message = raw as Message;
    const id = message.id;
    if (typeof id === 'string' && id.startsWith(INTERNAL) && message.method === undefined) {
      internal.get(id)?.(message);
      internal.delete(id);
      return;
    }
    if (id !== undefined && message.method === undefined) {
      const result = message.result as {
        tools?: Tool[];
        serverInfo?: { name?: string };
        protocolVersion?: string;
      };
      if (listing.delete(id)) remember(result?.tools ?? []);
      if (id === initializing) {
        serverName = result?.serverInfo?.name ?? serverName;
        if (result?.protocolVersion) server.setProtocolVersion?.(result.protocolVersion);
      }
    }
    toClient(message);
  };

  return new Promise((resolve) => {
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      for (const controller of held.values()) controller.abort();
      void Promise.allSettled([client.close(), server.close()]).then(() => resolve());
    };
    client.onclose = close;
    server.onclose = close;
    client.onerror = (error) => log(`client: ${error.message}`);
    server.onerror = (error) => log(`server: ${error.message}`);
  });
}

function callTitle(tool: string, args: Record<string, unknown>, server: string): string {
  const first = Object.values(args).find((value): value is string => typeof value === 'string');
  const title = `${tool} (${server})${first ? `: ${first.replace(/\s+/g, ' ')}` : ''}`;
  return title.length > 200 ? `${title.slice(0, 199)}…` : title;
}

function callMessage(
  tool: string,
  args: Record<string, unknown>,
  server: string,
  rule: string,
  hints?: ToolHints,
) {
  const destructive = !hints?.readOnlyHint && hints?.destructiveHint !== false;
  const claims = [hints?.readOnlyHint && 'read-only', destructive && 'may be destructive']
    .filter(Boolean)
    .join(', ');
  const head = `**${tool}** of the MCP server ${server} wants to run${claims ? ` (it says: ${claims})` : ''}. Rule: \`${rule}\`.\n\n`;
  let json = JSON.stringify(args, null, 2);
  if (json.length > MESSAGE_MAX - head.length - 40)
    json = `${json.slice(0, MESSAGE_MAX - head.length - 60)}\n… (cut)`;
  const fence = json.includes('```') ? '````' : '```';
  return `${head}${fence}json\n${json}\n${fence}`;
}
