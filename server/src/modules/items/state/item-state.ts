import type { itemStatuses } from '@beckon/db/schema';

export type ItemStatus = (typeof itemStatuses)[number];

export type ItemAction =
  | 'answer'
  | 'dismiss'
  | 'ack'
  | 'archive'
  | 'unarchive'
  | 'restore'
  | 'withdraw'
  | 'expire'
  | 'snooze'
  | 'unsnooze'
  | 'pin'
  | 'unpin';

type State = { status: ItemStatus; statusBeforeArchive: ItemStatus | null; hasResponse: boolean };

const ANY: readonly ItemStatus[] = ['open', 'answered', 'dismissed', 'archived', 'expired', 'withdrawn'];
const NOT_ARCHIVED = ANY.filter((s) => s !== 'archived');

/** Where each action may start (decisions.md, item status machine). */
const ALLOWED_FROM: Record<ItemAction, readonly ItemStatus[]> = {
  answer: ['open'],
  dismiss: ['open', 'answered'],
  ack: NOT_ARCHIVED,
  archive: NOT_ARCHIVED,
  unarchive: ['archived'],
  restore: ['dismissed', 'expired', 'withdrawn'],
  withdraw: ['open'],
  expire: ['open'],
  snooze: NOT_ARCHIVED,
  unsnooze: NOT_ARCHIVED,
  pin: ANY,
  unpin: ANY,
};

/**
 * The status an action leads to from `state`, or null when the move is not allowed.
 * Flags (ack, snooze, pin) keep the status.
 */
export function nextStatus(action: ItemAction, state: State): ItemStatus | null {
  if (!ALLOWED_FROM[action].includes(state.status)) return null;
  switch (action) {
    case 'answer':
      return 'answered';
    case 'dismiss':
      return 'dismissed';
    case 'archive':
      return 'archived';
    case 'unarchive':
      return state.statusBeforeArchive ?? 'open';
    case 'restore':
      return state.hasResponse ? 'answered' : 'open';
    case 'withdraw':
      return 'withdrawn';
    case 'expire':
      return 'expired';
    default:
      return state.status;
  }
}

/** The outcome a callback reports: an archived item reports the status it was archived from. */
export function outcome(status: ItemStatus, statusBeforeArchive: ItemStatus | null): ItemStatus {
  return status === 'archived' ? (statusBeforeArchive ?? 'open') : status;
}
