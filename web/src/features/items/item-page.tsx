import { isSnoozed } from '@beckon/contracts/items/list-rules';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { ChannelBadge, LevelBadge, PriorityBadge, StatusBadge, Tag } from '../../components/badges';
import { ErrorNotice, Loading } from '../../components/notice';
import { renderMarkdown } from '../../lib/markdown';
import { Link } from '../../lib/router';
import { formatDateTime, useNow } from '../../lib/time';
import { authTrpc, type Item, trpc } from '../../lib/trpc';
import { AnswerForm } from './answer/answer-form';
import { AnswerView } from './answer/answer-view';
import { Assignment } from './assignment';
import { Attachments } from './attachments';
import { BoundAction } from './bound-action';
import { Comments } from './comments';
import { Countdown } from './countdown';
import { ItemPageActions } from './item-page-actions';
import { namedIn } from './names';
import { Approvals, myResponse, TimeoutPolicy } from './policies';
import { Timeline } from './timeline';

function Message({ source }: { source: string }) {
  const html = useMemo(() => renderMarkdown(source), [source]);
  // renderMarkdown sanitizes with DOMPurify.
  return <div className="markdown text-sm text-gray-900" dangerouslySetInnerHTML={{ __html: html }} />;
}

function Metadata({ item }: { item: Item }) {
  const rows: [string, string][] = [
    ['ID', item.id],
    ['Created', formatDateTime(item.created_at)],
    ['Created by', namedIn(item.names, item.created_by)],
    ['Updated', formatDateTime(item.updated_at)],
    ...(item.acked_at ? [['Acknowledged', formatDateTime(item.acked_at)] as [string, string]] : []),
    ...(item.answered_at
      ? [
          ['Answered', formatDateTime(item.answered_at)] as [string, string],
          ['Answered by', namedIn(item.names, item.answered_by)] as [string, string],
          ...(item.answered_by?.type === 'policy'
            ? []
            : [['Answered from', item.answered_via ?? 'Beckon (dashboard or API)'] as [string, string]]),
        ]
      : []),
    ...(item.snoozed_until
      ? [['Snoozed until', formatDateTime(item.snoozed_until)] as [string, string]]
      : []),
    ...(item.archived_at ? [['Archived', formatDateTime(item.archived_at)] as [string, string]] : []),
    ...(item.callback_url ? [['Callback URL', item.callback_url] as [string, string]] : []),
    ...Object.entries(item.metadata).map(
      ([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)] as [string, string],
    ),
  ];
  return (
    <section aria-labelledby="metadata-heading" className="space-y-3">
      <h2 id="metadata-heading" className="text-base font-semibold text-gray-900">
        Details
      </h2>
      <dl className="space-y-2 text-sm">
        {rows.map(([key, value]) => (
          <div key={key}>
            <dt className="text-xs font-medium text-gray-700">{key}</dt>
            <dd className="break-all text-gray-900">{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

const card = 'rounded-lg border border-gray-200 bg-white p-4 shadow-xs';

export function ItemPage({ id }: { id: string }) {
  const query = useQuery(trpc.items.get.queryOptions({ id }));
  const now = useNow(30_000);
  const me = useQuery(authTrpc.accounts.me.queryOptions());
  if (query.isPending) return <Loading label="Loading the item…" />;
  if (query.isError)
    return (
      <div className="mx-auto max-w-3xl space-y-3 p-4">
        <ErrorNotice error={query.error} />
        <Link to="/" className="text-sm text-indigo-800 underline focus-ring">
          Back to the inbox
        </Link>
      </div>
    );
  const item = query.data;
  const snoozed = isSnoozed(item, now);
  const myId = me.data?.user.id;
  const mine = myResponse(item, myId);

  return (
    <article className="mx-auto max-w-5xl space-y-4 p-3 sm:p-4" aria-labelledby="item-title">
      <Link to="/" className="inline-block rounded text-sm text-indigo-800 underline focus-ring">
        ← Inbox
      </Link>
      <header className={`${card} space-y-3`}>
        <h1 id="item-title" className="text-xl font-semibold break-words text-gray-900">
          {item.pinned && <span className="sr-only">Pinned: </span>}
          {item.title}
        </h1>
        <div className="flex flex-wrap items-center gap-1.5">
          <LevelBadge level={item.level} />
          <StatusBadge status={item.status} />
          <PriorityBadge priority={item.priority} />
          {item.pinned && <span className="text-xs font-medium text-indigo-800">Pinned</span>}
          {item.channel && <ChannelBadge name={item.channel} />}
          {item.tags.map((tag) => (
            <Tag key={tag} name={tag} />
          ))}
        </div>
        {item.deadline_at && item.status === 'open' && <Countdown deadline={item.deadline_at} />}
        <TimeoutPolicy item={item} />
        <Assignment item={item} />
        {snoozed && item.snoozed_until && (
          <p className="text-sm text-gray-800">Snoozed until {formatDateTime(item.snoozed_until)}</p>
        )}
        <ItemPageActions item={item} answerable={item.status === 'open' && !!item.form && !mine} />
      </header>
      <div className="grid gap-4 lg:grid-cols-[1fr_18rem]">
        <div className="min-w-0 space-y-4">
          {item.message && (
            <section className={card} aria-label="Message">
              <Message source={item.message} />
            </section>
          )}
          <BoundAction item={item} className={card} />
          {item.form && (
            <section className={`${card} space-y-3`} aria-labelledby="form-heading">
              <h2 id="form-heading" className="text-base font-semibold text-gray-900">
                {item.status === 'open' ? 'Your answer' : 'Answer'}
              </h2>
              <Approvals item={item} myId={myId} />
              {item.status === 'open' && mine ? (
                <p
                  role="status"
                  className="rounded-md border border-sky-300 bg-sky-50 p-3 text-sm text-sky-950"
                >
                  You already answered ({mine.approves ? 'approved' : 'rejected'}, {formatDateTime(mine.at)}):
                  each person answers once. Waiting for the others.
                </p>
              ) : item.status === 'open' ? (
                <AnswerForm key={item.id} item={item} form={item.form} />
              ) : item.response ? (
                <AnswerView form={item.form} response={item.response} />
              ) : (
                <p className="text-sm text-gray-700">Not answered ({item.status}).</p>
              )}
            </section>
          )}
          <div className={card}>
            <Comments itemId={item.id} />
          </div>
          <div className={card}>
            <Attachments itemId={item.id} />
          </div>
        </div>
        <aside className="min-w-0 space-y-4">
          <div className={card}>
            <Metadata item={item} />
          </div>
          <div className={card}>
            <Timeline itemId={item.id} />
          </div>
        </aside>
      </div>
    </article>
  );
}
