import type { ParseArgsConfig } from 'node:util';
import type { BeckonClient } from '../client';
import type { Assignee, CreateItemInput, EscalationStep, Item, ListItemsInput } from '../types';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, unknown>;
type Fail = (message: string) => Error;

export const ASSIGNMENT_USAGE = `  claim <id> | unclaim <id>   say you are working on an item / release the claim
  assign <id> [--to <who> ...]  set the assignees (none: clears them); <who>: user:<id>, team:<id>, role:<name>

Assignment options (notify, ask): --assign <who> (repeatable)
  --escalate <after>:remind | <after>:escalate:<who>[,<who>...] (repeatable; after: 30m, 2h, 1d or PT30M)
List options: --assigned (assigned to me)  --claimed (claimed by me)
`;

export const assignmentOptions: Options = {
  assign: { type: 'string', multiple: true },
  escalate: { type: 'string', multiple: true },
};
export const listAssignmentOptions: Options = { assigned: { type: 'boolean' }, claimed: { type: 'boolean' } };
export const assignmentCommands = {
  claim: { options: {}, positionals: ['id'] },
  unclaim: { options: {}, positionals: ['id'] },
  assign: { options: { to: { type: 'string', multiple: true } } as Options, positionals: ['id'] },
};

/** `user:<id>`, `team:<id>` or `role:<name>`. */
function assignee(text: string, fail: Fail): Assignee {
  const [type, ...rest] = text.split(':');
  const value = rest.join(':');
  if (!value) throw fail(`"${text}": name an assignee as user:<id>, team:<id> or role:<name>`);
  if (type === 'role') return { type, name: value };
  if (type === 'user' || type === 'team') return { type, id: value };
  throw fail(`"${text}": an assignee is user:<id>, team:<id> or role:<name>`);
}

/** `30m`, `2h`, `1d`, `90s` as an ISO 8601 duration; an ISO duration as it is. */
function isoDuration(text: string, fail: Fail): string {
  if (text.startsWith('P')) return text;
  const match = /^(\d+)([smhd])$/.exec(text);
  if (!match) throw fail(`"${text}": a step's delay is 30m, 2h, 1d or an ISO 8601 duration such as PT30M`);
  const [, amount, unit] = match;
  return unit === 'd' ? `P${amount}D` : `PT${amount}${unit?.toUpperCase()}`;
}

/** `30m:remind`, `2h:escalate:team:<id>,role:admin`. */
function step(text: string, fail: Fail): EscalationStep {
  const [after = '', action, ...rest] = text.split(':');
  if (action === 'remind' && rest.length === 0) return { after: isoDuration(after, fail), action };
  if (action === 'escalate' && rest.length > 0) {
    const to = rest
      .join(':')
      .split(',')
      .map((who) => assignee(who, fail));
    return { after: isoDuration(after, fail), action, to };
  }
  throw fail(`--escalate "${text}": give <after>:remind or <after>:escalate:<who>[,<who>...]`);
}

/** `--assign` and `--escalate` of notify and ask. */
export function assignmentInput(
  values: Values,
  fail: Fail,
): Pick<CreateItemInput, 'assignees' | 'escalation'> {
  const input: Pick<CreateItemInput, 'assignees' | 'escalation'> = {};
  const assign = values.assign as string[] | undefined;
  const escalate = values.escalate as string[] | undefined;
  if (assign) input.assignees = assign.map((who) => assignee(who, fail));
  if (escalate) input.escalation = escalate.map((text) => step(text, fail));
  return input;
}

/** `--assigned` and `--claimed` of list. */
export const listAssignment = (values: Values): Pick<ListItemsInput, 'assigned_to_me' | 'claimed_by_me'> => ({
  ...(values.assigned ? { assigned_to_me: true } : {}),
  ...(values.claimed ? { claimed_by_me: true } : {}),
});

/** claim, unclaim, assign: shows the item (JSON) or a line saying what happened; exit code 0. */
export async function runAssignment(
  command: keyof typeof assignmentCommands,
  id: string,
  values: Values,
  beckon: BeckonClient,
  fail: Fail,
  show: (item: Item, text: string) => void,
): Promise<0> {
  if (command === 'assign') {
    const to = ((values.to as string[] | undefined) ?? []).map((who) => assignee(who, fail));
    const item = await beckon.assign(id, to);
    const names = item.assignees.map((a) => (a.type === 'role' ? `role:${a.name}` : `${a.type}:${a.id}`));
    show(item, `assigned ${item.id} to ${names.join(', ') || 'nobody'}\n`);
  } else {
    const item = await beckon[command](id);
    const holder = item.claimed_by ? ` (claimed by ${item.claimed_by.type} ${item.claimed_by.id})` : '';
    show(item, `${command}ed ${item.id}${holder}\n`);
  }
  return 0;
}
