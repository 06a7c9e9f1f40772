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
