import type { z } from 'zod';
import type { ItemView, ZListItemsInput } from './item.contract';

/**
 * Which items a list request returns, as a pure function of the item and the request: the rules
 * `listItems` (server/src/modules/items/operations/read-items.ts) writes in SQL, for the dashboard, which
 * moves a changed item in and out of the lists it holds without asking the server again. Plain
 * code with type-only imports, so the dashboard's bundle gets these few lines and nothing else of
 * the server; tests/src/items/list-rules.test.ts holds it to what GET /api/items answers.
 */

/** A list request as sent (tRPC input or REST query); page size and cursor only cut it into pages. */
export type ListItemsRequest = z.input<typeof ZListItemsInput>;

/** The fields of an item (its wire shape) the rules look at. */
export type ListedItemFields = Pick<
  ItemView,
  'status' | 'channel_id' | 'channel' | 'snoozed_until' | 'assignees' | 'claimed_by'
>;

/** Who is asking, for "assigned to me" and "claimed by me": a person (user) or an agent. */
export type Viewer = { type: 'user' | 'agent'; id: string };

/**
 * Whether an item is assigned to the viewer: yes when it names them, no when it names nobody or
 * the viewer is an agent; otherwise (a team, a role, a viewer not known) only the server knows.
 */
function assignedTo(item: ListedItemFields, viewer: Viewer | undefined): boolean | null {
  if (item.assignees.length === 0 || viewer?.type === 'agent') return false;
  if (!viewer) return null;
  if (item.assignees.some((a) => a.type === 'user' && a.id === viewer.id)) return true;
  return item.assignees.some((a) => a.type !== 'user') ? null : false;
}

/** Whether the viewer holds the item's claim (null: a claim, and the viewer is not known). */
function claimedBy(item: ListedItemFields, viewer: Viewer | undefined): boolean | null {
  const claimer = item.claimed_by;
  if (!claimer) return false;
  return viewer ? claimer.type === viewer.type && claimer.id === viewer.id : null;
}

/** Whether a snooze hides the item at `now`; a snooze that has run out (`<= now()`) does not. */
export const isSnoozed = (item: Pick<ItemView, 'snoozed_until'>, now: number) =>
  item.snoozed_until !== null && new Date(item.snoozed_until).getTime() > now;

/** A flag as the list input accepts it: a boolean, or its query-string text (ZQueryBool). */
const isSet = (flag: unknown) => flag === true || flag === 'true';

/**
 * Whether `input` lists `item` at time `now` (milliseconds) for `viewer`, or null when only
 * PostgreSQL can tell (full-text `q`, an assignment to a team or role, when nothing else already
 * rules the item out).
 */
export function listedBy(
  item: ListedItemFields,
  input: ListItemsRequest,
  now: number,
  viewer?: Viewer,
): boolean | null {
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
  const claimed = isSet(input.claimed_by_me) ? claimedBy(item, viewer) : true;
  const assigned = isSet(input.assigned_to_me) ? assignedTo(item, viewer) : true;
  if (claimed === false || assigned === false) return false;
  if (input.q !== undefined || assigned === null || claimed === null) return null;
  return true;
}
