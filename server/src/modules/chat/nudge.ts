import type { MAIL_REASONS } from '../../job-tasks';
import { TITLE_PREFIX } from '../push/push-entries';

type Reason = (typeof MAIL_REASONS)[number];

/**
 * What a chat message or text of a notification sends when the item is already in that chat:
 * a short line under it, so the person's phone rings again without a second copy of the buttons
 * (a reminder, an escalation or an assignment of an item they were already sent).
 */
export const nudgeText = (reason: Reason, title: string) =>
  reason === 'reminded'
    ? `${TITLE_PREFIX.reminded}${title}: still waiting for an answer`
    : `${TITLE_PREFIX[reason]}${title}`;

/** The delivery log's event of a notification's message: the item change it follows. */
export const reasonEvent = (reason: Reason) =>
  reason === 'created' ? 'item.created' : reason === 'assigned' ? 'item.updated' : `item.${reason}`;
