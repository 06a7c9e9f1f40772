import { z } from 'zod';
import { AGENT_TOOLS } from './tools';

/**
 * A zod schema as the JSON Schema MCP clients (and the models behind them) read: an object at the
 * top, so a named contract (`ZItem`, hoisted by zod into `$defs`) is put back in place.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output') {
  const {
    $schema: _,
    $ref,
    $defs,
    ...json
  } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as {
    $ref?: string;
    $defs?: Record<string, Record<string, unknown>>;
  } & Record<string, unknown>;
  const named = $ref?.startsWith('#/$defs/') ? $defs?.[$ref.slice('#/$defs/'.length)] : undefined;
  const top = named ? { ...named, ...json } : json;
  return { ...top, ...($defs ? { $defs } : {}) } as { type: 'object'; properties?: Record<string, unknown> };
}

/** Tools at 2025-11-25: titles, output schemas, and which may run as tasks. */
const TASK_TOOLS = AGENT_TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: jsonSchema(tool.input, 'input'),
  outputSchema: jsonSchema(tool.output, 'output'),
  annotations: { title: tool.title, ...tool.annotations },
  ...(tool.waits ? { execution: { taskSupport: 'optional' as const } } : {}),
}));
/** Tools at 2025-06-18 (no tasks yet), and as clients of 2025-03-26 know them. */
const TYPED_TOOLS = TASK_TOOLS.map(({ execution: _execution, ...typed }) => typed);
const BASIC_TOOLS = TYPED_TOOLS.map(({ title: _title, outputSchema: _output, ...basic }) => basic);

export const TOOLS = new Map(AGENT_TOOLS.map((tool) => [tool.name, tool]));

/** Protocol revisions that know `structuredContent`, output schemas and resource links. */
export const structured = (protocolVersion: string | undefined) => (protocolVersion ?? '') >= '2025-06-18';
/** Protocol revisions that know tasks. */
export const withTasks = (protocolVersion: string | undefined) => (protocolVersion ?? '') >= '2025-11-25';

export const toolList = (protocolVersion: string | undefined) => ({
  tools: withTasks(protocolVersion) ? TASK_TOOLS : structured(protocolVersion) ? TYPED_TOOLS : BASIC_TOOLS,
});
