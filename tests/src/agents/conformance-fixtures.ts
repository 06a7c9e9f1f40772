import { LOG_LEVELS } from '@beckon/server/mcp/conversation';
import type { McpEngine } from '@beckon/server/mcp/engine';
import { TASKS_EXTENSION } from '@beckon/server/mcp/modern';
import { type Method, RpcError } from '@beckon/server/mcp/rpc';
import { CLIENT_TOOLS } from './conformance-client-fixtures';
import { NO_ARGUMENTS, PROMPTS, RESOURCES, TEMPLATE, TOOLS, text } from './conformance-content';
import { INPUT_TOOLS, inputPrompt } from './conformance-input-fixtures';
import { callTaskTool, TASK_METHODS, TASK_TOOL_LIST } from './conformance-task-fixtures';

/**
 * The fixtures the official conformance suite's server scenarios call (tools, resources and
 * prompts named `test_*`, `test://…`), as the scenario texts of @modelcontextprotocol/conformance
 * describe them, served by Beckon's own MCP handling (http/mcp.ts with another engine). Test
 * code only: no production build registers them.
 */

const notFound = (uri: unknown) => new RpcError(-32602, 'Resource not found', { uri });

const listed = (tools: Record<string, { description: string; inputSchema?: Record<string, unknown> }>) =>
  Object.entries(tools).map(([name, tool]) => ({
    name,
    description: tool.description,
    inputSchema: tool.inputSchema ?? NO_ARGUMENTS,
  }));

/** The methods of both revision families (the modern handling adds resultType and _meta). */
const METHODS: Record<string, Method> = {
  ping: async () => ({}),
  'tools/list': async () => ({ tools: listed(TOOLS) }),
  'tools/call': async (ctx, params) => {
    const tool = TOOLS[String(params.name)];
    if (!tool) throw new RpcError(-32602, `unknown tool: ${String(params.name)}`);
    return tool.call((params.arguments ?? {}) as Record<string, unknown>, ctx);
  },
  'resources/list': async () => ({
    resources: RESOURCES.map(({ text: _text, blob: _blob, ...resource }) => resource),
  }),
  'resources/templates/list': async () => ({
    resourceTemplates: [
      {
        uriTemplate: 'test://template/{id}/data',
        name: 'template',
        description: 'A resource template',
        mimeType: 'application/json',
      },
    ],
  }),
  'resources/read': async (_ctx, params) => {
    const uri = String(params.uri);
    const resource = RESOURCES.find((candidate) => candidate.uri === uri);
    if (resource) {
      const { uri: _uri, name: _name, description: _description, ...content } = resource;
      return { contents: [{ uri, ...content }] };
    }
    const id = TEMPLATE.exec(uri)?.[1];
    if (!id) throw notFound(uri);
    const data = { id, templateTest: true, data: `Data for ID: ${id}` };
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data) }] };
  },
  'resources/subscribe': async () => ({}),
  'resources/unsubscribe': async () => ({}),
  'prompts/list': async () => ({
    prompts: Object.entries(PROMPTS).map(([name, prompt]) => ({
      name,
      description: prompt.description,
      ...(prompt.arguments ? { arguments: prompt.arguments } : {}),
    })),
  }),
  'prompts/get': async (_ctx, params) => {
    const prompt = PROMPTS[String(params.name)];
    if (!prompt) throw new RpcError(-32602, `unknown prompt: ${String(params.name)}`);
    return { messages: prompt.messages((params.arguments ?? {}) as Record<string, string>) };
  },
  'completion/complete': async () => ({ completion: { values: [], total: 0, hasMore: false } }),
  'logging/setLevel': async (ctx, params) => {
    if (!LOG_LEVELS.includes(String(params.level))) throw new RpcError(-32602, 'unknown logging level');
    ctx.setLogLevel?.(String(params.level));
    return {};
  },
};

/** 2025: the fixtures that ask the client or log while they run, too. */
const LEGACY: Record<string, Method> = {
  ...METHODS,
  'tools/list': async () => ({ tools: [...listed(TOOLS), ...listed(CLIENT_TOOLS)] }),
  'tools/call': async (ctx, params) => {
    const tool = CLIENT_TOOLS[String(params.name)];
    if (!tool) return (METHODS['tools/call'] as Method)(ctx, params);
    return tool.call((params.arguments ?? {}) as Record<string, unknown>, ctx);
  },
};

const INSTRUCTIONS = "The conformance suite's fixtures on Beckon's MCP handling.";
const LIST_TTL = { ttlMs: 60_000, cacheScope: 'public' };
/** At 2026-07-28 lists and reads say how long they may be kept (the caching scenario). */
const cached =
  (method: Method): Method =>
  async (ctx, params) => ({ ...((await method(ctx, params)) as object), ...LIST_TTL });

/** A tool whose `region` argument travels in the header `Mcp-Param-Region` too (SEP-2243). */
const CUSTOM_HEADERS_TOOL = {
  name: 'test_custom_headers',
  description: 'A tool with x-mcp-header annotations',
  inputSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      priority: { type: 'number' },
    },
    required: ['region'],
  },
};
const INPUT_PROMPT = 'test_input_required_result_prompt';

/** 2026-07-28 adds the multi round-trip fixtures, custom headers, and Beckon's tasks methods. */
const MODERN: Record<string, Method> = {
  ...Object.fromEntries(
    Object.entries(METHODS).filter(
      ([name]) =>
        !['ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe'].includes(name),
    ),
  ),
  'tools/list': cached(async (ctx, params) => {
    const { tools } = (await (METHODS['tools/list'] as Method)(ctx, params)) as { tools: unknown[] };
    const input = Object.keys(INPUT_TOOLS).map((name) => ({
      name,
      description: 'A conformance fixture asking for input',
      inputSchema: NO_ARGUMENTS,
    }));
    return { tools: [...tools, ...input, CUSTOM_HEADERS_TOOL, ...TASK_TOOL_LIST] };
  }),
  'tools/call': async (ctx, params) => {
    const input = INPUT_TOOLS[String(params.name)];
    if (input) return input(ctx, params);
    const task = await callTaskTool(ctx, params);
    if (task) return task;
    if (params.name === CUSTOM_HEADERS_TOOL.name)
      return { content: [text(`Region: ${String((params.arguments as { region?: unknown })?.region)}`)] };
    return (METHODS['tools/call'] as Method)(ctx, params);
  },
  'resources/list': cached(METHODS['resources/list'] as Method),
  'resources/templates/list': cached(METHODS['resources/templates/list'] as Method),
  'resources/read': cached(METHODS['resources/read'] as Method),
  'prompts/list': cached(async (ctx, params) => {
    const { prompts } = (await (METHODS['prompts/list'] as Method)(ctx, params)) as { prompts: unknown[] };
    return {
      prompts: [...prompts, { name: INPUT_PROMPT, description: 'A prompt that asks for context first' }],
    };
  }),
  'prompts/get': async (ctx, params) =>
    params.name === INPUT_PROMPT ? inputPrompt(params) : (METHODS['prompts/get'] as Method)(ctx, params),
  // The task fixtures' jobs; other task ids go to Beckon's own methods.
  ...TASK_METHODS,
};

export const FIXTURE_ENGINE: McpEngine = {
  legacy: {
    methods: LEGACY,
    converses: (method, params) => method === 'tools/call' && String(params.name) in CLIENT_TOOLS,
    capabilities: {
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: false },
      prompts: { listChanged: false },
      completions: {},
      logging: {},
    },
    instructions: () => INSTRUCTIONS,
  },
  modern: {
    methods: MODERN,
    capabilities: {
      tools: { listChanged: false },
      resources: { listChanged: false },
      prompts: { listChanged: false },
      completions: {},
      extensions: { [TASKS_EXTENSION]: {} },
    },
    instructions: () => INSTRUCTIONS,
  },
};
