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

/** The channel an answer came from (`answered_via`), when not the dashboard or the API. */
const VIA: Record<string, string> = {
  email: 'by email',
  slack: 'in Slack',
  teams: 'in Microsoft Teams',
  mcp: 'in their AI assistant',
  sms: 'by SMS',
  whatsapp: 'on WhatsApp',
};

function detail(data: Record<string, unknown> | null): string {
  if (!data) return '';
  if (typeof data.answered_via === 'string')
    return ` ${VIA[data.answered_via] ?? `via ${data.answered_via}`}`;
  if (typeof data.until === 'string') return ` until ${formatDateTime(data.until)}`;
  if (typeof data.filename === 'string') return `: ${data.filename}`;
  return '';
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
                  : `${ACTIONS[entry.action ?? ''] ?? entry.action}${detail(entry.data)}`}
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
