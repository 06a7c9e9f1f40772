/** The kinds of item events: streams, webhooks and callbacks (a module of its own: the dashboard imports it). */
export const EVENT_KINDS = [
  'item.created',
  'item.updated',
  'item.answered',
  'item.dismissed',
  'item.acked',
  'item.archived',
  'item.unarchived',
  'item.restored',
  'item.expired',
  'item.withdrawn',
  'item.commented',
  'item.reminded',
  'item.escalated',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** The events reported to an item's `callback_url`: its outcomes and the moves after them. */
export const CALLBACK_EVENT_KINDS = [
  'item.answered',
  'item.dismissed',
  'item.acked',
  'item.archived',
  'item.unarchived',
  'item.restored',
  'item.expired',
  'item.withdrawn',
] as const satisfies readonly EventKind[];
