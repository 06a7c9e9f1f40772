import { useInfiniteQuery } from '@tanstack/react-query';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { type ReactNode, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Button } from '../../components/button';
import { ErrorNotice, Loading } from '../../components/notice';
import { useNow } from '../../lib/time';
import { appClient, type Item, type ItemListInput, trpc } from '../../lib/trpc';
import { ItemRow } from './item-row';

/** What a feed lists: the list request without its paging (the feed pages through it). */
export type FeedInput = Omit<ItemListInput, 'limit' | 'cursor'>;

const PAGE_SIZE = 100;
const count = new Intl.NumberFormat();

/**
 * One view of the inbox: infinite scroll over `next_cursor`, virtualized against the window so that only
 * the rows on screen (plus a few) are in the DOM, whatever the number of items loaded. An ARIA
 * feed: each row is an article with its position, and the feed is busy while a page loads.
 */
export function ItemFeed({
  input,
  keep,
  empty,
  label,
}: {
  input: FeedInput;
  /** A client-side filter on top of the server's (the snoozed view). */
  keep?: (item: Item, now: number) => boolean;
  /** What an empty list says: a sentence, or what to do next (the first steps). */
  empty: string | ReactNode;
  label: string;
}) {
  // tRPC's infiniteQueryOptions adds `direction` to the input, which the strict list input
  // refuses: the pages are fetched here, under tRPC's own infinite query key (so cache updates
  // and invalidations find them).
  const listInput = { ...input, limit: PAGE_SIZE };
  const query = useInfiniteQuery({
    queryKey: trpc.items.list.infiniteQueryKey(listInput),
    queryFn: ({ pageParam, signal }) =>
      appClient.items.list.query({ ...listInput, ...(pageParam ? { cursor: pageParam } : {}) }, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
  });
  const now = useNow(60_000);
  const loaded = query.data?.pages.flatMap((page) => page.items) ?? [];
  const items = keep ? loaded.filter((item) => keep(item, now)) : loaded;

  const listRef = useRef<HTMLDivElement>(null);
  const [scrollMargin, setScrollMargin] = useState(0);
  useLayoutEffect(() => {
    // The list's offset from the top of the document (what the window virtualizer scrolls past).
    const measure = () =>
      setScrollMargin((listRef.current?.getBoundingClientRect().top ?? 0) + window.scrollY);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, []);

  const virtualizer = useWindowVirtualizer({
    count: items.length,
    estimateSize: () => 96,
    overscan: 6,
    scrollMargin,
    getItemKey: (index) => items[index]?.id ?? index,
  });
  const rows = virtualizer.getVirtualItems();
  const lastShown = rows.at(-1)?.index ?? -1;

  const { hasNextPage, isFetchingNextPage, fetchNextPage, isError } = query;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !isError && lastShown >= items.length - 10)
      void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, isError, fetchNextPage, lastShown, items.length]);

  if (query.isPending) return <Loading label="Loading items…" />;
  if (query.isError && !query.data) return <ErrorNotice error={query.error} className="m-3" />;

  return (
    <div>
      {items.length === 0 && !hasNextPage ? (
        typeof empty === 'string' ? (
          <p className="px-4 py-10 text-center text-sm text-gray-700">{empty}</p>
        ) : (
          empty
        )
      ) : null}
      <div
        ref={listRef}
        role="feed"
        aria-label={label}
        aria-busy={query.isFetching}
        style={{ height: virtualizer.getTotalSize(), position: 'relative' }}
      >
        {rows.map((row) => {
          const item = items[row.index];
          if (!item) return null;
          return (
            <div
              key={row.key}
              data-index={row.index}
              ref={virtualizer.measureElement}
              className="absolute top-0 left-0 w-full"
              style={{ transform: `translateY(${row.start - virtualizer.options.scrollMargin}px)` }}
            >
              <ItemRow
                item={item}
                now={now}
                position={row.index + 1}
                size={hasNextPage ? -1 : items.length}
              />
            </div>
          );
        })}
      </div>
      <div className="flex items-center justify-between gap-2 px-4 py-3 text-sm text-gray-700">
        <p role="status" id="feed-status">
          {items.length > 0 && `${count.format(items.length)} ${items.length === 1 ? 'item' : 'items'}`}
          {isFetchingNextPage
            ? ' · loading more…'
            : hasNextPage
              ? ''
              : items.length > 0
                ? ' · end of the list'
                : ''}
        </p>
        {hasNextPage && !isFetchingNextPage && (
          <Button size="sm" onClick={() => void fetchNextPage()}>
            Load more
          </Button>
        )}
      </div>
      {query.isError && query.data ? <ErrorNotice error={query.error} className="m-3" /> : null}
    </div>
  );
}
