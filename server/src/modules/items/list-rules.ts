import type { z } from 'zod';
import type { ItemView, ZListItemsInput } from './item.contract';

/**
 * Which items a list request returns, as a pure function of the item and the request: the rules
 * `listItems` (items.service.ts) writes in SQL, for the dashboard, which moves a changed item in
 * and out of the lists it holds without asking the server again. Plain code with type-only
 * imports, so the dashboard's bundle gets these few lines and nothing else of the server;
 * tests/src/items/list-rules.test.ts holds it to what GET /api/items answers.
 */

/** A list request as sent (tRPC input or REST query); page size and cursor only cut it into pages. */
export type ListItemsRequest = z.input<typeof ZListItemsInput>;

/** The fields of an item (its wire shape) the rules look at. */
export type ListedItemFields = Pick<ItemView, 'status' | 'channel_id' | 'channel' | 'snoozed_until'>;

/** Whether a snooze hides the item at `now`; a snooze that has run out (`<= now()`) does not. */
export const isSnoozed = (item: Pick<ItemView, 'snoozed_until'>, now: number) =>
  item.snoozed_until !== null && new Date(item.snoozed_until).getTime() > now;

/** A flag as the list input accepts it: a boolean, or its query-string text (ZQueryBool). */
const isSet = (flag: unknown) => flag === true || flag === 'true';

/**
 * Whether `input` lists `item` at time `now` (milliseconds), or null when only PostgreSQL can tell
 * (full-text `q`, when nothing else already rules the item out).
 */
export function listedBy(item: ListedItemFields, input: ListItemsRequest, now: number): boolean | null {
  // A status filter names the status; without one, archived items only show when asked.
  if (input.status !== undefined) {
    if (item.status !== input.status) return false;
  } else if (item.status === 'archived' && !isSet(input.include_archived)) {
    return false;
  }
  if (isSnoozed(item, now) && !isSet(input.include_snoozed)) return false;
  if (input.channel_id !== undefined && item.channel_id !== input.channel_id) return false;
  // By name: an unknown name lists nothing, and no item has an unknown channel's name.
  if (input.channel !== undefined && item.channel !== input.channel) return false;
  if (input.q !== undefined) return null;
  return true;
}
