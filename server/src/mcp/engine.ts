import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { withApp } from './app';
import { discoveryInstructions, MODERN_CAPABILITIES, MODERN_METHODS } from './modern';
import { METHODS, type Method } from './rpc';
import { type ToolNames, underscored } from './tool-list';

const INSTRUCTIONS =
  'Beckon reaches the people of your organization. Use service.notify to tell them something and ' +
  'service.ask to ask a question with a form. People answer in minutes or hours: run service.ask ' +
  'as a task (tasks/result returns the outcome), or pass wait_seconds (at most 50) and call ' +
  'service.get with wait_seconds until the item is no longer open; the event stream GET /mcp/sse ' +
  'reports every change. Item ids are UUIDs returned by these tools.';

/** The instructions of `initialize`, with the tool names spelled as this client's list spells them. */
export const agentInstructions = (names: ToolNames) =>
  names === 'underscore' ? underscored(INSTRUCTIONS) : INSTRUCTIONS;

/** What `initialize` advertises: the tools, and tasks for `tools/call` (protocol 2025-11-25). */
export const CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: false },
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

/**
 * What POST /mcp serves, separate from how it serves it (http/mcp.ts, http/mcp-modern.ts: the
 * transports, headers, revisions, sessions, errors): the methods and capabilities of each
 * revision family. Beckon's is the agent tools; the conformance tests put the suite's fixtures
 * on the same handling (tests/src/agents/conformance-fixtures.ts).
 */
export type McpEngine = {
  /** 2025-03-26 … 2025-11-25: what `initialize` advertises, and the methods after it. */
  legacy: {
    methods: Record<string, Method>;
    capabilities: ServerCapabilities;
    instructions: (names: ToolNames) => string | undefined;
    /**
     * Whether answering a request may send the client requests or log messages (RpcContext's
     * `ask` and `log`): such a request is answered as an event stream, and `initialize` gives a
     * session id that carries the capabilities the client declared. Absent: never.
     */
    converses?: (method: string, params: Record<string, unknown>) => boolean;
  };
  /** 2026-07-28: what `server/discover` advertises, and the methods. */
  modern: {
    methods: Record<string, Method>;
    capabilities: Record<string, unknown>;
    instructions: (names: ToolNames) => string | undefined;
  };
};

/** Beckon's agent tools, with the MCP App for clients that declare it. */
export const AGENT_ENGINE: McpEngine = {
  legacy: { methods: withApp(METHODS), capabilities: CAPABILITIES, instructions: agentInstructions },
  modern: {
    methods: withApp(MODERN_METHODS),
    capabilities: MODERN_CAPABILITIES,
    instructions: discoveryInstructions,
  },
};
