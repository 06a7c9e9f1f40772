import { isSnoozed } from '@beckon/contracts/items/list-rules';
import { memo } from 'react';
import { ChannelBadge, LevelBadge, levelBar, PriorityBadge, StatusBadge, Tag } from '../../components/badges';
import { Link } from '../../lib/router';
import { formatDateTime, formatRelative } from '../../lib/time';
import type { Item } from '../../lib/trpc';
import { AssignmentBadge } from '../items/assignment';
import { Countdown } from '../items/countdown';
import { ItemActions } from '../items/item-actions';

/** One inbox row: what it is, how urgent, where from, and its actions. */
/** Memoized: scrolling re-renders the list, and the rows already on screen need not follow. */
export const ItemRow = memo(function ItemRow({
  item,
  now,
  position,
  size,
}: {
  item: Item;
  now: number;
  /** Position in the feed and its size (-1 while more pages exist), for assistive technologies. */
  position: number;
  size: number;
}) {
  const snoozed = isSnoozed(item, now);
  return (
    <article
      aria-labelledby={`item-${item.id}-title`}
      aria-posinset={position}
      aria-setsize={size}
      className={`relative flex flex-col gap-2 border-b border-gray-200 bg-white py-3 pr-3 pl-4 sm:flex-row sm:items-start ${
        item.acked_at === null && item.status === 'open' ? '' : 'bg-gray-50'
      }`}
    >
      <span aria-hidden="true" className={`absolute inset-y-0 left-0 w-1 ${levelBar(item.level)}`} />
      <div className="min-w-0 flex-1">
        <h3 id={`item-${item.id}-title`} className="text-base font-medium text-gray-900">
          {item.pinned && (
            <span className="mr-1 text-indigo-800" title="Pinned">
              <span aria-hidden="true">📌</span>
              <span className="sr-only">Pinned:</span>
            </span>
          )}
          <Link to={`/items/${item.id}`} className="rounded hover:underline focus-ring break-words">
            {item.title}
          </Link>
        </h3>
        <div className="mt-1 flex flex-wrap items-center gap-1.5 text-xs text-gray-700">
          <LevelBadge level={item.level} />
          <StatusBadge status={item.status} />
          <PriorityBadge priority={item.priority} />
          {item.channel && <ChannelBadge name={item.channel} />}
          {item.tags.map((tag) => (
            <Tag key={tag} name={tag} />
          ))}
          {item.form && item.status === 'open' && (
            <span className="font-medium text-indigo-800">Waiting for your answer</span>
          )}
          <time dateTime={item.created_at} title={formatDateTime(item.created_at)}>
            {formatRelative(item.created_at, now)}
          </time>
          {snoozed && item.snoozed_until && <span>Snoozed until {formatDateTime(item.snoozed_until)}</span>}
          {item.deadline_at && item.status === 'open' && <Countdown deadline={item.deadline_at} compact />}
          <AssignmentBadge item={item} />
        </div>
      </div>
      <ItemActions item={item} />
    </article>
  );
});
