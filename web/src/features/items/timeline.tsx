import { answerSourceWords } from '@beckon/contracts/enums';
import { useQuery } from '@tanstack/react-query';
import { ErrorNotice, Loading } from '../../components/notice';
import { formatDateTime, formatRelative } from '../../lib/time';
import { trpc } from '../../lib/trpc';
import { actorLabel, sentenceStart } from './names';

/** `item.answer` → "answered"; unknown actions are shown as they are. */
const ACTIONS: Record<string, string> = {
  'item.create': 'created the item',
  'item.update': 'updated the item',
  'item.answer': 'answered',
  'item.approve': 'approved',
  'item.reject': 'rejected',
  'item.ack': 'acknowledged',
  'item.dismiss': 'dismissed',
  'item.archive': 'archived',
  'item.unarchive': 'unarchived',
  'item.restore': 'restored',
  'item.withdraw': 'withdrew the question',
  'item.expire': 'expired (deadline passed)',
  'item.snooze': 'snoozed',
  'item.unsnooze': 'removed the snooze',
  'item.pin': 'pinned',
  'item.unpin': 'unpinned',
  'item.assign': 'changed the assignees',
  'item.claim': 'claimed it',
  'item.unclaim': 'released the claim',
  'item.remind': 'sent a reminder (escalation policy)',
  'item.escalate': 'escalated it (escalation policy)',
  'item.repeat': 'notified again (until acknowledged)',
  'attachment.create': 'attached a file',
  'attachment.delete': 'deleted an attachment',
};

type Delegation = { user_id: string; delegate_id: string };

/** "Ada and Grace": the people named by ids, each by name (or as a former member). */
const people = (ids: string[], names: Record<string, string>) =>
  ids.map((id) => names[id] ?? 'a former member').join(' and ');

/**
 * What an entry's data adds to its sentence: where an answer came from, whom a delegate acted
 * for, who was away and whose delegate was told instead, a snooze's end, a file's name.
 */
function detail(data: Record<string, unknown> | null, names: Record<string, string>): string {
  if (!data) return '';
  const parts: string[] = [];
  if (typeof data.answered_via === 'string')
    parts.push(
      ` ${answerSourceWords[data.answered_via as keyof typeof answerSourceWords] ?? `via ${data.answered_via}`}`,
    );
  if (Array.isArray(data.on_behalf_of) && data.on_behalf_of.length > 0)
    parts.push(` on behalf of ${people(data.on_behalf_of as string[], names)} (away)`);
  if (Array.isArray(data.delegated))
    for (const { user_id, delegate_id } of data.delegated as Delegation[])
      parts.push(`; ${people([user_id], names)} is away, so ${people([delegate_id], names)} was told`);
  if (typeof data.until === 'string') parts.push(` until ${formatDateTime(data.until)}`);
  if (typeof data.filename === 'string') parts.push(`: ${data.filename}`);
  return parts.join('');
}

export function Timeline({ itemId }: { itemId: string }) {
  const timeline = useQuery(trpc.items.timeline.queryOptions({ id: itemId }));
  return (
    <section aria-labelledby="timeline-heading" className="space-y-3">
      <h2 id="timeline-heading" className="text-base font-semibold text-gray-900">
        Timeline
      </h2>
      {timeline.isPending ? (
        <Loading />
      ) : timeline.isError ? (
        <ErrorNotice error={timeline.error} />
      ) : (
        <ol className="space-y-3 border-l-2 border-gray-200 pl-4" aria-label="Timeline">
          {timeline.data.map((entry) => (
            <li key={entry.id} className="text-sm">
              <p className="text-gray-900">
                {sentenceStart(actorLabel({ type: entry.actor_type }, entry.actor_name))}{' '}
                {entry.entry_type === 'comment'
                  ? 'commented'
                  : `${ACTIONS[entry.action ?? ''] ?? entry.action}${detail(entry.data, entry.names)}`}
              </p>
              {entry.entry_type === 'comment' && entry.body && (
                <p className="mt-0.5 line-clamp-3 whitespace-pre-wrap text-gray-800">{entry.body}</p>
              )}
              <time
                dateTime={entry.created_at}
                title={formatDateTime(entry.created_at)}
                className="text-xs text-gray-700"
              >
                {formatRelative(entry.created_at)}
              </time>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
