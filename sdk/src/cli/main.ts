import { readFile } from 'node:fs/promises';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { version } from '../../package.json';
import { type BeckonClient, createClient } from '../client';
import type { AskInput, CreateItemInput, Form, ItemLevel, ListItemsInput } from '../types';
import type { WaitOutcome } from '../wait';
import * as assignment from './assignment';
import { parseWhen } from './duration';
import { formFromFields } from './form';
import { describeError, itemDetails, itemLine, itemList, json } from './format';
import { loadBridge, MCP_INSTALL_HINT } from './mcp';
import { askPolicies } from './policies';
import { USAGE } from './usage';
import { saysYes, waitProgress, yesRule } from './waiting';

export const EXIT = { ok: 0, error: 1, dismissed: 2, expired: 3, timeout: 4, withdrawn: 5, no: 6 } as const;

type Options = NonNullable<ParseArgsConfig['options']>;
const global: Options = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};
const itemOptions: Options = {
  message: { type: 'string', short: 'm' },
  level: { type: 'string' },
  priority: { type: 'string' },
  channel: { type: 'string' },
  tag: { type: 'string', multiple: true },
  metadata: { type: 'string' },
  deadline: { type: 'string' },
  ...assignment.assignmentOptions,
};
const commands: Record<string, { options: Options; positionals: string[] }> = {
  notify: { options: itemOptions, positionals: ['title'] },
  ask: {
    options: {
      ...itemOptions,
      field: { type: 'string', multiple: true },
      form: { type: 'string' },
      wait: { type: 'boolean' },
      timeout: { type: 'string' },
      'on-timeout': { type: 'string' },
      approvals: { type: 'string' },
      'yes-if': { type: 'string' },
    },
    positionals: ['title'],
  },
  list: {
    options: {
      status: { type: 'string' },
      channel: { type: 'string' },
      q: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      archived: { type: 'boolean' },
      snoozed: { type: 'boolean' },
      ...assignment.listAssignmentOptions,
    },
    positionals: [],
  },
  get: { options: {}, positionals: ['id'] },
  ack: { options: {}, positionals: ['id'] },
  dismiss: { options: {}, positionals: ['id'] },
  snooze: { options: {}, positionals: ['id', 'until'] },
  comment: { options: {}, positionals: ['id', 'text'] },
  mcp: { options: { 'tool-names': { type: 'string' } }, positionals: [] },
  ...assignment.assignmentCommands,
};

class UsageError extends Error {}
const usageError = (message: string) => new UsageError(message);

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;
type Io = { out: (text: string) => void; err: (text: string) => void };
const stdio: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const str = (values: Values, name: string) => values[name] as string | undefined;

function number(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${name} must be a number`);
  return value;
}

function when(text: string, name: string): string {
  const iso = parseWhen(text);
  if (!iso) throw new UsageError(`${name} must be an ISO 8601 time or a duration like 30m, 2h, 1d`);
  return iso;
}

function itemInput(title: string, values: Values): CreateItemInput {
  const input: CreateItemInput = { title };
  const message = str(values, 'message');
  if (message !== undefined) input.message = message;
  if (values.level !== undefined) input.level = str(values, 'level') as ItemLevel;
  const priority = number(str(values, 'priority'), 'priority');
  if (priority !== undefined) input.priority = priority;
  const channel = str(values, 'channel');
  if (channel !== undefined) {
    if (UUID.test(channel)) input.channel_id = channel;
    else input.channel = channel;
  }
  if (values.tag) input.tags = values.tag as string[];
  const metadata = str(values, 'metadata');
  if (metadata !== undefined) {
    try {
      input.metadata = JSON.parse(metadata) as Record<string, unknown>;
    } catch {
      throw new UsageError('--metadata must be a JSON object');
    }
  }
  const deadline = str(values, 'deadline');
  if (deadline !== undefined) input.deadline_at = when(deadline, '--deadline');
  return { ...input, ...assignment.assignmentInput(values, usageError) };
}

async function askForm(values: Values): Promise<Form> {
  const file = str(values, 'form');
  const fields = (values.field as string[] | undefined) ?? [];
  if (file && fields.length) throw new UsageError('give --field or --form, not both');
  if (file) {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as Form;
    } catch (error) {
      throw new UsageError(`--form ${file}: ${(error as Error).message}`);
    }
  }
  if (!fields.length)
    throw new UsageError('ask needs a form: --field id:type:label (repeatable) or --form file.json');
  try {
    return formFromFields(fields);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const exitOf: Record<WaitOutcome['status'], number> = {
  answered: EXIT.ok,
  dismissed: EXIT.dismissed,
  expired: EXIT.expired,
  timeout: EXIT.timeout,
  withdrawn: EXIT.withdrawn,
};

async function run(
  command: string,
  args: string[],
  values: Values,
  beckon: BeckonClient,
  io: Io,
  url: string,
): Promise<number> {
  const asJson = values.json === true;
  const [first = '', second = ''] = args;
  const show = (value: unknown, text: string) => io.out(asJson ? json(value) : text);
  switch (command) {
    case 'notify': {
      const item = await beckon.notify(itemInput(first, values));
      show(item, `${itemLine(item)}\n`);
      return EXIT.ok;
    }
    case 'ask': {
      const input: AskInput = {
        ...itemInput(first, values),
        form: await askForm(values),
        ...askPolicies(str(values, 'on-timeout'), str(values, 'approvals'), (m) => new UsageError(m)),
      };
      const timeout = number(str(values, 'timeout'), 'timeout');
      if (timeout !== undefined && !values.wait) throw new UsageError('--timeout goes with --wait');
      if (values['yes-if'] !== undefined && !values.wait) throw new UsageError('--yes-if goes with --wait');
      const rule = yesRule(input.form, str(values, 'yes-if'), usageError);
      const question = await beckon.ask(input);
      if (!values.wait) {
        show(question.item, `${itemLine(question.item)}\n`);
        return EXIT.ok;
      }
      const progress = waitProgress(question.item, url, io.err);
      const outcome = await question
        .waitForAnswer({ timeoutMs: (timeout ?? 60) * 1000, onUpdate: progress.onUpdate })
        .finally(progress.stop);
      const { status, item, response } = outcome;
      const yes = status === 'answered' ? saysYes(rule, response) : null;
      const summary = { status, item_id: item.id, response, answered_by: item.answered_by, yes };
      io.out(json(asJson ? { ...outcome, yes } : summary));
      return yes === false ? EXIT.no : exitOf[status];
    }
    case 'list': {
      const input: ListItemsInput = {};
      if (values.status !== undefined) input.status = str(values, 'status') as ListItemsInput['status'];
      const channel = str(values, 'channel');
      if (channel !== undefined) {
        if (UUID.test(channel)) input.channel_id = channel;
        else input.channel = channel;
      }
      if (values.q !== undefined) input.q = str(values, 'q');
      const limit = number(str(values, 'limit'), 'limit');
      if (limit !== undefined) input.limit = limit;
      if (values.cursor !== undefined) input.cursor = str(values, 'cursor');
      if (values.archived) input.include_archived = true;
      if (values.snoozed) input.include_snoozed = true;
      const list = await beckon.list({ ...input, ...assignment.listAssignment(values) });
      show(list, itemList(list));
      return EXIT.ok;
    }
    case 'get': {
      const item = await beckon.get(first);
      show(item, itemDetails(item));
      return EXIT.ok;
    }
    case 'ack':
    case 'dismiss': {
      const item = await beckon[command](first);
      show(item, `${command === 'ack' ? 'acknowledged' : 'dismissed'} ${item.id} (status ${item.status})\n`);
      return EXIT.ok;
    }
    case 'snooze': {
      const item = await beckon.snooze(first, when(second, 'until'));
      show(item, `snoozed ${item.id} until ${item.snoozed_until}\n`);
      return EXIT.ok;
    }
    case 'claim':
    case 'unclaim':
    case 'assign':
      return assignment.runAssignment(command, first, values, beckon, usageError, show);
    case 'comment': {
      const comment = await beckon.addComment(first, second);
      show(comment, `commented on ${comment.item_id}\n`);
      return EXIT.ok;
    }
  }
  throw new UsageError(`unknown command "${command}"`);
}

/** The CLI: returns the exit code. `env` is read here only (BECKON_URL, BECKON_TOKEN). */
export async function main(argv: string[], env: Record<string, string | undefined>, io = stdio) {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    (command ? io.out : io.err)(USAGE);
    return command ? EXIT.ok : EXIT.error;
  }
  if (command === '--version' || command === '-v') {
    io.out(`${version}\n`);
    return EXIT.ok;
  }
  const url = () => values?.url ?? env.BECKON_URL ?? '';
  let values: Record<string, string | undefined> | undefined;
  try {
    const spec = commands[command];
    if (!spec) throw new UsageError(`unknown command "${command}"`);
    const parsed = parseArgs({
      args: rest,
      options: { ...global, ...spec.options },
      allowPositionals: true,
      strict: true,
    });
    values = parsed.values as Record<string, string | undefined>;
    if (parsed.values.help) {
      io.out(USAGE);
      return EXIT.ok;
    }
    const missing = spec.positionals.slice(parsed.positionals.length);
    if (missing.length) throw new UsageError(`${command} needs <${missing.join('> <')}>`);
    if (parsed.positionals.length > spec.positionals.length)
      throw new UsageError(`too many arguments for ${command} (quote text with spaces)`);
    const token = (parsed.values.token as string | undefined) ?? env.BECKON_TOKEN;
    if (!url()) throw new UsageError('no server: set BECKON_URL or pass --url');
    if (!token) throw new UsageError('no token: set BECKON_TOKEN or pass --token');
    if (command === 'mcp') {
      const bridge = await loadBridge();
      if (!bridge) {
        io.err(MCP_INSTALL_HINT);
        return EXIT.error;
      }
      const toolNames = (parsed.values['tool-names'] as string | undefined) ?? 'auto';
      if (toolNames !== 'auto' && toolNames !== 'dotted' && toolNames !== 'underscore')
        throw new UsageError('--tool-names must be auto, dotted or underscore');
      await bridge.serveMcp({ url: url(), token, toolNames });
      return EXIT.ok;
    }
    const beckon = createClient({ baseUrl: url(), token });
    return await run(command, parsed.positionals, parsed.values, beckon, io, url());
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`beckon: ${(error as Error).message}\nRun "beckon --help" for usage.\n`);
      return EXIT.error;
    }
    io.err(`beckon: ${describeError(error, url())}\n`);
    return EXIT.error;
  }
}
