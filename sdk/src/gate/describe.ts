import type { ToolCall } from './rules';

const TITLE_MAX = 200;
const MESSAGE_MAX = 20_000;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** What the call does, in a line: the tool and its command, file, address or first argument. */
export function callTitle(call: ToolCall, cwd?: string): string {
  const input = call.input;
  const pick = (key: string) => (typeof input[key] === 'string' ? (input[key] as string) : undefined);
  let subject = pick('command') ?? pick('file_path') ?? pick('notebook_path') ?? pick('url') ?? pick('path');
  if (subject && cwd && subject.startsWith(`${cwd.replace(/\/+$/, '')}/`))
    subject = subject.slice(cwd.length + 1);
  subject ??= Object.values(input).find((value): value is string => typeof value === 'string');
  return clip(subject ? `${call.tool}: ${oneLine(subject)}` : call.tool, TITLE_MAX);
}

/** The message people read before deciding: the whole input, the rule, where it runs. */
export function callMessage(
  call: ToolCall,
  details: { rule: string; cwd?: string | undefined; agent?: string | undefined },
): string {
  const where = [details.agent, details.cwd && `in \`${details.cwd}\``].filter(Boolean).join(' ');
  const head = `**${call.tool}**${where ? ` (${where})` : ''} wants to run. Rule: \`${details.rule}\`.\n\n`;
  const json = JSON.stringify(call.input, null, 2);
  const room = MESSAGE_MAX - head.length - 40;
  const body =
    json.length > room ? `${json.slice(0, room)}\n… (cut: ${json.length} characters in all)` : json;
  const fence = body.includes('```') ? '````' : '```';
  return `${head}${fence}json\n${body}\n${fence}`;
}
