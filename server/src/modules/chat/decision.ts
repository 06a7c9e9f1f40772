import type { ItemView } from '@beckon/contracts/items/item.contract';
import type { Deps } from '../../deps';
import { AppError } from '../../errors';
import { findItem } from '../items/rows/item-queries';
import { itemView } from '../items/rows/item-view';

/** What a chat message says once the item is decided (or acknowledged): who, and what. */
export type Decision = { by: string | null; summary: string };

/** The text of an answer, field by field, with the options' labels. */
export function answerSummary(item: ItemView): string {
  const response = item.response ?? {};
  return (item.form?.fields ?? [])
    .filter((field) => response[field.id] !== undefined)
    .map((field) => {
      const value = response[field.id];
      const label = (v: unknown) =>
        ('options' in field && field.options?.find((o) => o.value === v)?.label) || String(v);
      const shown =
        typeof value === 'boolean'
          ? field.type === 'yesno'
            ? value
              ? (field.yes_label ?? 'Yes')
              : (field.no_label ?? 'No')
            : value
              ? 'yes'
              : 'no'
          : Array.isArray(value)
            ? value.map(label).join(', ')
            : label(value);
      return (item.form?.fields.length ?? 0) > 1 ? `${field.label}: ${shown}` : shown;
    })
    .join('; ');
}

/** Who decided, by name, for a message's closing line. */
export async function decisionOf(deps: Deps, item: ItemView): Promise<Decision> {
  const by = item.answered_by;
  let name: string | null = null;
  if (by?.type === 'user' && by.id) {
    const [user] = await deps.sql<{ name: string | null; email: string }[]>`
      select name, email from users where id = ${by.id}`;
    name = user?.name || user?.email || null;
  } else if (by?.type === 'agent' && by.id) {
    const [agent] = await deps.sql<
      { name: string }[]
    >`select name from agents where org_id = ${item.org_id} and id = ${by.id}`;
    name = agent?.name ?? 'an agent';
  } else if (by?.type === 'policy') {
    // Nobody answered: the item's timeout policy did, and the message must not read as a person's.
    name = 'the timeout policy';
  }
  return { by: name, summary: item.status === 'answered' ? answerSummary(item) : '' };
}

/**
 * The closing line of a message, in plain text (each app escapes it for its markup): who decided,
 * where, what; null while the item is open and not acknowledged.
 */
export function decisionLine(item: ItemView, decision: Decision): string | null {
  const by = decision.by ? ` by ${decision.by}` : '';
  const via = item.answered_via ? ` via ${item.answered_via}` : '';
  if (item.status === 'answered') return `Answered${by}${via}: ${decision.summary}`;
  if (item.status === 'open') return item.acked_at ? `Acknowledged${by}` : null;
  return `${item.status[0]?.toUpperCase()}${item.status.slice(1)}${by}`;
}

/** The item as the API shows it now; null when it was deleted meanwhile. */
export async function loadItem(deps: Deps, orgId: string, itemId: string) {
  const row = await findItem(deps.sql, { orgId }, itemId).catch((error: unknown) => {
    if (error instanceof AppError && error.status === 404) return null;
    throw error;
  });
  return row ? itemView(row) : null;
}
