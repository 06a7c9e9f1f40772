import type { Method } from '@beckon/server/mcp/rpc';

/**
 * What the conformance suite's fixtures return (tools, resources, prompts), as the scenario texts
 * of @modelcontextprotocol/conformance describe them; served by conformance-fixtures.ts. Test code
 * only.
 */

/** A 1×1 PNG and a minimal WAV: content the scenarios check only for type, data and mime type. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = Buffer.from(
  'RIFF$\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x80\x3e\0\0\x02\0\x10\0data\0\0\0\0',
  'binary',
).toString('base64');

export const text = (value: string) => ({ type: 'text', text: value });
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

export const NO_ARGUMENTS = { type: 'object', properties: {} };

type Fixture = {
  description: string;
  inputSchema?: Record<string, unknown>;
  call: (
    args: Record<string, unknown>,
    ctx: Parameters<Method>[0],
  ) => Promise<Record<string, unknown>> | Record<string, unknown>;
};

export const TOOLS: Record<string, Fixture> = {
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

export const RESOURCES = [
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
export const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

export const PROMPTS: Record<
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
