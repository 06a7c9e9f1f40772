import {
  BeckonError,
  NetworkError,
  PermissionDeniedError,
  PlanLimitError,
  UnauthorizedError,
  ValidationError,
} from '../errors';
import type { Item, ItemList } from '../types';

export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export function itemLine(item: Item): string {
  const flags = [item.pinned ? 'pinned' : '', item.snoozed_until ? 'snoozed' : ''].filter(Boolean);
  return [item.id, item.status.padEnd(9), item.level.padEnd(7), `p${item.priority}`, item.title]
    .concat(flags.length ? [`(${flags.join(', ')})`] : [])
    .join('  ');
}

export function itemList(list: ItemList): string {
  if (list.items.length === 0) return 'No items.\n';
  const lines = list.items.map(itemLine);
  if (list.next_cursor) lines.push(`More: --cursor ${list.next_cursor}`);
  return `${lines.join('\n')}\n`;
}

export function itemDetails(item: Item): string {
  const rows: [string, unknown][] = [
    ['id', item.id],
    ['title', item.title],
    ['message', item.message],
    ['status', item.status],
    ['level', item.level],
    ['priority', item.priority],
    ['channel', item.channel],
    ['tags', item.tags.length ? item.tags.join(', ') : null],
    ['form', item.form ? item.form.fields.map((f) => `${f.id} (${f.type})`).join(', ') : null],
    ['response', item.response ? JSON.stringify(item.response) : null],
    ['answered_at', item.answered_at],
    ['answered_by', item.answered_by ? `${item.answered_by.type} ${item.answered_by.id ?? ''}`.trim() : null],
    ['deadline_at', item.deadline_at],
    ['on_timeout', item.deadline_at ? item.on_timeout.action : null],
    ['approvals', item.approvals ? `${item.approvals.approved}/${item.approvals.required} approved` : null],
    ['snoozed_until', item.snoozed_until],
    ['pinned', item.pinned ? 'yes' : null],
    ['created_at', item.created_at],
  ];
  return `${rows
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([key, value]) => `${`${key}:`.padEnd(15)}${String(value)}`)
    .join('\n')}\n`;
}

/** A failure as readable lines for stderr. */
export function describeError(error: unknown, url: string): string {
  if (error instanceof UnauthorizedError)
    return 'unauthorized: the token was refused (check BECKON_TOKEN or --token)';
  if (error instanceof PermissionDeniedError)
    return `permission denied${error.required ? `: this needs ${error.required}` : `: ${error.message}`}`;
  if (error instanceof PlanLimitError)
    return `plan limit reached: ${error.key} ${error.current}/${error.limit} (upgrade: ${error.upgrade_url})`;
  if (error instanceof ValidationError) {
    const fields = Object.entries(error.fields).map(([field, problem]) => `\n  ${field}: ${problem}`);
    return `${error.message} (${error.status})${fields.join('')}`;
  }
  if (error instanceof NetworkError)
    return `cannot reach ${url}: ${error.message.replace(/^network error: /, '')}`;
  if (error instanceof BeckonError) {
    // A hint says where the request should have gone (BECKON_URL on the wrong process, say).
    const { hint } = error.body;
    return `${error.message} (${error.status})${typeof hint === 'string' ? `: ${hint}` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}
