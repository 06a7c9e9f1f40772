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
/** Tools at 2026-07-28: the server decides which calls become tasks (no per-tool opt-in). */
const MODERN_TOOLS = TASK_TOOLS.map(({ execution: _execution, ...tool }) => tool);
/** Tools at 2025-06-18 (no tasks yet), and as clients of 2025-03-26 know them. */
const TYPED_TOOLS = MODERN_TOOLS;
const BASIC_TOOLS = TYPED_TOOLS.map(({ title: _title, outputSchema: _output, ...basic }) => basic);

/**
 * How tool names are spelled for a client: the specification's `service.notify`, or
 * `service_notify` for hosts that accept only `^[a-zA-Z0-9_-]{1,64}$` (docs/api.md, "Tool names").
 */
export type ToolNames = 'dotted' | 'underscore';

/** `service.get` → `service_get` wherever a tool's definition names a tool (descriptions too). */
export const underscored = (text: string) => text.replace(/\bservice\.([a-z_]+)/g, 'service_$1');
const spelled = <T>(tools: T[]): T[] => JSON.parse(underscored(JSON.stringify(tools))) as T[];

/** Each tool under both spellings: a call may use either, whichever list the client saw. */
export const TOOLS = new Map(
  AGENT_TOOLS.flatMap((tool) => [
    [tool.name, tool],
    [underscored(tool.name), tool],
  ]),
);

/** Protocol revisions that know `structuredContent`, output schemas and resource links. */
export const structured = (protocolVersion: string | undefined) => (protocolVersion ?? '') >= '2025-06-18';
/** Protocol revisions that know tasks (2025-11-25 in the core, later as an extension). */
export const withTasks = (protocolVersion: string | undefined) => (protocolVersion ?? '') >= '2025-11-25';
/** The stateless revision: no handshake, tasks as an extension. */
export const MODERN_REVISION = '2026-07-28';

const LISTS = {
  modern: MODERN_TOOLS,
  tasks: TASK_TOOLS,
  typed: TYPED_TOOLS,
  basic: BASIC_TOOLS,
};
const SPELLED = {
  dotted: LISTS,
  underscore: Object.fromEntries(
    Object.entries(LISTS).map(([revision, tools]) => [revision, spelled(tools)]),
  ) as typeof LISTS,
};

export const toolList = (protocolVersion: string | undefined, names: ToolNames = 'dotted') => {
  const lists = SPELLED[names];
  return {
    tools:
      protocolVersion === MODERN_REVISION
        ? lists.modern
        : withTasks(protocolVersion)
          ? lists.tasks
          : structured(protocolVersion)
            ? lists.typed
            : lists.basic,
  };
};
