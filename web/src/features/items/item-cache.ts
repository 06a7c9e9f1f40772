import { listedBy } from '@beckon/contracts/items/list-rules';
import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import type { Item, ItemList, ItemListInput } from '../../lib/trpc';
import { authTrpc, trpc } from '../../lib/trpc';

/** Lists are ordered pinned first, then newest first (UUID v7 ids sort by creation). */
const sortsBefore = (a: Item, b: Item) => (a.pinned !== b.pinned ? a.pinned : a.id > b.id);

/**
 * Puts `item` where it belongs in a loaded list (replacing, moving or removing it). Keyset pages
 * never shift, so inserting into a loaded page is exact; an item that sorts after everything
 * loaded is left for the page that will bring it.
 */
function placeInList(data: InfiniteData<ItemList>, item: Item, member: boolean): InfiniteData<ItemList> {
  const pages = data.pages.map((page) => ({ ...page, items: page.items.filter((i) => i.id !== item.id) }));
  if (member) {
    let placed = false;
    for (const page of pages) {
      const index = page.items.findIndex((existing) => sortsBefore(item, existing));
      if (index >= 0) {
        page.items.splice(index, 0, item);
        placed = true;
        break;
      }
    }
    const last = pages.at(-1);
    if (!placed && last && last.next_cursor === null) last.items.push(item);
  }
  return { ...data, pages };
}

const listKey = trpc.items.list.pathKey();

/**
 * Applies a changed item (a mutation's answer or a live event) to every cached query: the item
 * itself, every loaded list, and what depends on it (stats, timeline, comments, attachments).
 */
export function applyItem(queryClient: QueryClient, item: Item, event?: string) {
  queryClient.setQueryData(trpc.items.get.queryKey({ id: item.id }), item);
  const now = Date.now();
  // The signed-in person ("assigned to me", "claimed by me"); the shell has loaded it.
  const me = queryClient.getQueryData(authTrpc.accounts.me.queryKey());
  const viewer = me ? { type: 'user' as const, id: me.user.id } : undefined;
  for (const query of queryClient.getQueryCache().findAll({ queryKey: listKey })) {
    const data = query.state.data as InfiniteData<ItemList> | undefined;
    if (!data?.pages) continue;
    const input = (query.queryKey[1] as { input?: ItemListInput } | undefined)?.input ?? {};
    const member = listedBy(item, input, now, viewer);
    const present = data.pages.some((page) => page.items.some((i) => i.id === item.id));
    if (member === null) {
      if (present) queryClient.setQueryData(query.queryKey, placeInList(data, item, true));
      else void queryClient.invalidateQueries({ queryKey: query.queryKey, exact: true });
      continue;
    }
    if (member || present) queryClient.setQueryData(query.queryKey, placeInList(data, item, member));
  }
  void queryClient.invalidateQueries({ queryKey: trpc.stats.get.queryKey() });
  if (event !== 'item.created') {
    for (const key of [
      trpc.items.timeline.queryKey({ id: item.id }),
      trpc.items.comments.queryKey({ id: item.id }),
      trpc.attachments.list.queryKey({ id: item.id }),
    ]) {
      void queryClient.invalidateQueries({ queryKey: key });
    }
  }
}
