import type { McpEngine } from '@beckon/server/mcp/engine';
import { MODERN_METHODS, TASKS_EXTENSION } from '@beckon/server/mcp/modern';
import { type Method, RpcError } from '@beckon/server/mcp/rpc';
import { INPUT_TOOLS, inputPrompt } from './conformance-input-fixtures';

/**
 * The fixtures the official conformance suite's server scenarios call (tools, resources and
 * prompts named `test_*`, `test://…`), as the scenario texts of @modelcontextprotocol/conformance
 * describe them, served by Beckon's own MCP handling (http/mcp.ts with another engine). Test
 * code only: no production build registers them.
 */

/** A 1×1 PNG and a minimal WAV: content the scenarios check only for type, data and mime type. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = Buffer.from(
  'RIFF$\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x80\x3e\0\0\x02\0\x10\0data\0\0\0\0',
  'binary',
).toString('base64');

const text = (value: string) => ({ type: 'text', text: value });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const SCHEMA_2020 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  // A JSON Schema keyword, not a promise's.
  // biome-ignore lint/suspicious/noThenProperty: the 2020-12 conditional the scenario checks
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

const NO_ARGUMENTS = { type: 'object', properties: {} };

type Fixture = {
  description: string;
  inputSchema?: Record<string, unknown>;
  call: (
    args: Record<string, unknown>,
    ctx: Parameters<Method>[0],
  ) => Promise<Record<string, unknown>> | Record<string, unknown>;
};

const TOOLS: Record<string, Fixture> = {
  test_simple_text: {
    description: 'Returns a simple text',
    call: () => ({ content: [text('This is a simple text response for testing.')] }),
  },
  test_image_content: {
    description: 'Returns an image',
    call: () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }),
  },
  test_audio_content: {
    description: 'Returns audio',
    call: () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }),
  },
  test_embedded_resource: {
    description: 'Returns an embedded resource',
    call: () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  },
  test_multiple_content_types: {
    description: 'Returns text, an image and a resource',
    call: () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  },
  test_error_handling: {
    description: 'Always fails',
    call: () => ({ isError: true, content: [text('This tool intentionally returns an error for testing')] }),
  },
  test_tool_with_progress: {
    description: 'Reports progress',
    call: async (_args, ctx) => {
      for (const progress of [0, 50, 100]) {
        await ctx.progress?.(progress, 100, `${progress}%`);
        if (progress < 100) await sleep(50);
      }
      return { content: [text('Progress tool completed')] };
    },
  },
  json_schema_2020_12_tool: {
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: SCHEMA_2020,
    call: (args) => ({ content: [text(`Received: ${JSON.stringify(args)}`)] }),
  },
};

const RESOURCES = [
  {
    uri: 'test://static-text',
    name: 'static-text',
    description: 'A static text resource',
    mimeType: 'text/plain',
    text: 'This is the content of the static text resource.',
  },
  {
    uri: 'test://static-binary',
    name: 'static-binary',
    description: 'A static binary resource',
    mimeType: 'image/png',
    blob: PNG,
  },
  {
    uri: 'test://watched-resource',
    name: 'watched-resource',
    description: 'A resource to subscribe to',
    mimeType: 'text/plain',
    text: 'Watched.',
  },
];
const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

const PROMPTS: Record<
  string,
  {
    description: string;
    arguments?: Array<{ name: string; description: string; required: boolean }>;
    messages: (args: Record<string, string>) => unknown[];
  }
> = {
  test_simple_prompt: {
    description: 'A simple prompt',
    messages: () => [{ role: 'user', content: text('This is a simple prompt for testing.') }],
  },
  test_prompt_with_arguments: {
    description: 'A prompt with arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
    messages: (args) => [
      { role: 'user', content: text(`Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`) },
    ],
  },
  test_prompt_with_embedded_resource: {
    description: 'A prompt with an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    messages: (args) => [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: {
            uri: args.resourceUri,
            mimeType: 'text/plain',
            text: 'Embedded resource content for testing.',
          },
        },
      },
      { role: 'user', content: text('Please process the embedded resource above.') },
    ],
  },
  test_prompt_with_image: {
    description: 'A prompt with an image',
    messages: () => [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: text('Please analyze the image above.') },
    ],
  },
};

const notFound = (uri: unknown) => new RpcError(-32602, 'Resource not found', { uri });

/** The methods of both revision families (the modern handling adds resultType and _meta). */
const METHODS: Record<string, Method> = {
  ping: async () => ({}),
  'tools/list': async () => ({
    tools: Object.entries(TOOLS).map(([name, tool]) => ({
      name,
      description: tool.description,
      inputSchema: tool.inputSchema ?? NO_ARGUMENTS,
    })),
  }),
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
  'logging/setLevel': async () => ({}),
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
    return { tools: [...tools, ...input, CUSTOM_HEADERS_TOOL] };
  }),
  'tools/call': async (ctx, params) => {
    const input = INPUT_TOOLS[String(params.name)];
    if (input) return input(ctx, params);
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
  // Beckon's own: its tasks follow its items, so the suite's task fixtures cannot make one.
  'tasks/get': MODERN_METHODS['tasks/get'] as Method,
  'tasks/update': MODERN_METHODS['tasks/update'] as Method,
  'tasks/cancel': MODERN_METHODS['tasks/cancel'] as Method,
};

export const FIXTURE_ENGINE: McpEngine = {
  legacy: {
    methods: METHODS,
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
