import type { RpcContext } from '@beckon/server/mcp/rpc';
import { text } from './conformance-content';

/**
 * The conformance suite's fixtures that talk to the client while a call runs (2025 revisions):
 * sampling, elicitation and log messages, through RpcContext's `ask` and `log` (the engine answers
 * these calls as an event stream). As the suite's reference server (everything-server.ts of
 * modelcontextprotocol/conformance) writes them. Test code only.
 */
type Ctx = RpcContext;
type Fixture = {
  description: string;
  inputSchema: Record<string, unknown>;
  call: (args: Record<string, unknown>, ctx: Ctx) => Promise<Record<string, unknown>>;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ARGUMENT = (name: string, description: string) => ({
  type: 'object',
  properties: { [name]: { type: 'string', description } },
  required: [name],
});
const NONE = { type: 'object', properties: {} };

const ask = async (ctx: Ctx, method: string, params: Record<string, unknown>) => {
  if (!ctx.ask) throw new Error('this call cannot ask its client');
  return ctx.ask(method, params);
};

/** An elicitation's outcome as the reference server reports it. */
const elicited = async (ctx: Ctx, prefix: string, params: Record<string, unknown>) => {
  const answer = await ask(ctx, 'elicitation/create', params);
  return {
    content: [
      text(`${prefix}: action=${String(answer.action)}, content=${JSON.stringify(answer.content ?? {})}`),
    ],
  };
};

const SEP1034_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: {
      type: 'string',
      description: 'User status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
  required: [],
};

const titled = (prefix: string, titles: string[]) =>
  titles.map((title, index) => ({ const: `${prefix}${index + 1}`, title }));
const SEP1330_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: {
      type: 'string',
      description: 'Select one option',
      enum: ['option1', 'option2', 'option3'],
    },
    titledSingle: {
      type: 'string',
      description: 'Select one option with titles',
      oneOf: titled('value', ['First Option', 'Second Option', 'Third Option']),
    },
    legacyEnum: {
      type: 'string',
      description: 'Select one option (legacy)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Select multiple options',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Select multiple options with titles',
      minItems: 1,
      maxItems: 3,
      items: { anyOf: titled('value', ['First Choice', 'Second Choice', 'Third Choice']) },
    },
  },
  required: [],
};

export const CLIENT_TOOLS: Record<string, Fixture> = {
  test_tool_with_logging: {
    description: 'Sends log messages while it runs',
    inputSchema: NONE,
    call: async (_args, ctx) => {
      for (const message of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
        await ctx.log?.('info', message);
        if (!message.endsWith('completed')) await sleep(50);
      }
      return { content: [text('Tool with logging executed successfully')] };
    },
  },
  test_sampling: {
    description: 'Asks the client for an LLM completion',
    inputSchema: ARGUMENT('prompt', 'The prompt to send to the LLM'),
    call: async (args, ctx) => {
      const answer = await ask(ctx, 'sampling/createMessage', {
        messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt) } }],
        maxTokens: 100,
      });
      const content = answer.content as { text?: string } | undefined;
      return { content: [text(`LLM response: ${content?.text ?? 'No response'}`)] };
    },
  },
  test_elicitation: {
    description: 'Asks the user for input',
    inputSchema: ARGUMENT('message', 'The message to show the user'),
    call: (args, ctx) =>
      elicited(ctx, 'User response', {
        message: String(args.message),
        requestedSchema: {
          type: 'object',
          properties: { response: { type: 'string', description: "User's response" } },
          required: ['response'],
        },
      }),
  },
  test_elicitation_sep1034_defaults: {
    description: 'Elicitation with default values (SEP-1034)',
    inputSchema: NONE,
    call: (_args, ctx) =>
      elicited(ctx, 'Elicitation completed', {
        message: 'Please review and update the form fields with defaults',
        requestedSchema: SEP1034_SCHEMA,
      }),
  },
  test_elicitation_sep1330_enums: {
    description: 'Elicitation with the enum schemas of SEP-1330',
    inputSchema: NONE,
    call: (_args, ctx) =>
      elicited(ctx, 'Elicitation completed', {
        message: 'Please select options from the enum fields',
        requestedSchema: SEP1330_SCHEMA,
      }),
  },
};
