import { isSnoozed } from '@beckon/contracts/items/list-rules';
import { Field, Input, Label, Select, Tab, TabGroup, TabList, TabPanel, TabPanels } from '@headlessui/react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { navigate, useLocation } from '../../lib/router';
import { type Item, trpc } from '../../lib/trpc';
import { FirstSteps } from './first-steps';
import { type FeedInput, ItemFeed } from './item-feed';

const VIEWS = [
  { id: 'inbox', label: 'Inbox', empty: 'Nothing waiting for you. New items appear here as they arrive.' },
  { id: 'assigned', label: 'Assigned to me', empty: 'Nothing is assigned to you, your teams or your role.' },
  { id: 'claimed', label: 'Claimed by me', empty: 'You have not claimed any item.' },
  { id: 'snoozed', label: 'Snoozed', empty: 'No snoozed items.' },
  { id: 'archived', label: 'Archived', empty: 'No archived items.' },
] as const;
type View = (typeof VIEWS)[number]['id'];

const STATUSES: Item['status'][] = ['open', 'answered', 'dismissed', 'expired', 'withdrawn'];

const control =
  'mt-1 block w-full rounded-md border border-gray-400 bg-white px-3 py-2 text-sm text-gray-900 focus-ring';

/** The filters live in the URL (`?view=&status=&channel=&q=`), so a reload or a shared link keeps them. */
function useFilters() {
  const params = useLocation().searchParams;
  const set = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    const search = next.toString();
    navigate(search ? `/?${search}` : '/', { replace: true });
  };
  const view = (VIEWS.find((v) => v.id === params.get('view'))?.id ?? 'inbox') as View;
  const status = STATUSES.find((s) => s === params.get('status'));
  return { view, status, channel: params.get('channel') ?? '', q: params.get('q') ?? '', set };
}

export function InboxPage() {
  const { view, status, channel, q, set } = useFilters();
  const channels = useQuery(trpc.channels.list.queryOptions());
  const [search, setSearch] = useState(q);
  useEffect(() => {
    const timer = setTimeout(() => {
      if (search.trim() !== q) set({ q: search.trim() });
    }, 300);
    return () => clearTimeout(timer);
  });

  const common: FeedInput = {
    ...(channel ? { channel_id: channel } : {}),
    ...(q ? { q } : {}),
  };
  const inputs: Record<View, FeedInput> = {
    inbox: { ...common, ...(status ? { status } : {}) },
    assigned: { ...common, ...(status ? { status } : {}), assigned_to_me: true },
    claimed: { ...common, ...(status ? { status } : {}), claimed_by_me: true },
    snoozed: { ...common, ...(status ? { status } : {}), include_snoozed: true },
    archived: { ...common, status: 'archived', include_snoozed: true },
  };

  return (
    <div className="mx-auto max-w-5xl">
      <h1 className="sr-only">Inbox</h1>
      <TabGroup
        selectedIndex={VIEWS.findIndex((v) => v.id === view)}
        onChange={(index) => set({ view: index === 0 ? '' : (VIEWS[index]?.id ?? '') })}
      >
        <div className="sticky top-0 z-20 border-b border-gray-200 bg-white/95 px-3 pt-3 backdrop-blur sm:px-4">
          <TabList className="flex gap-1 overflow-x-auto" aria-label="Views">
            {VIEWS.map((v) => (
              <Tab
                key={v.id}
                className="rounded-t-md border-b-2 border-transparent px-3 py-2 text-sm font-medium text-gray-700 focus-ring data-hover:text-gray-900 data-selected:border-indigo-700 data-selected:text-indigo-800"
              >
                {v.label}
              </Tab>
            ))}
          </TabList>
          <search>
            <form
              className="grid grid-cols-2 gap-2 py-3 sm:grid-cols-[1fr_10rem_12rem]"
              onSubmit={(event) => {
                event.preventDefault();
                set({ q: search.trim() });
              }}
            >
              <Field className="col-span-2 sm:col-span-1">
                <Label className="text-xs font-medium text-gray-800">Search</Label>
                <Input
                  type="search"
                  value={search}
                  placeholder="Title or message"
                  onChange={(event) => setSearch(event.target.value)}
                  className={control}
                />
              </Field>
              <Field disabled={view === 'archived'}>
                <Label className="text-xs font-medium text-gray-800 data-disabled:text-gray-500">
                  Status
                </Label>
                <Select
                  value={status ?? ''}
                  onChange={(event) => set({ status: event.target.value })}
                  className={control}
                >
                  <option value="">Any status</option>
                  {STATUSES.map((s) => (
                    <option key={s} value={s}>
                      {s.charAt(0).toUpperCase() + s.slice(1)}
                    </option>
                  ))}
                </Select>
              </Field>
              <Field>
                <Label className="text-xs font-medium text-gray-800">Channel</Label>
                <Select
                  value={channel}
                  onChange={(event) => set({ channel: event.target.value })}
                  className={control}
                >
                  <option value="">All channels</option>
                  {channels.data?.map((c) => (
                    <option key={c.id} value={c.id}>
                      #{c.name}
                    </option>
                  ))}
                </Select>
              </Field>
            </form>
          </search>
        </div>
        <TabPanels>
          {VIEWS.map((v) => (
            <TabPanel key={v.id} className="focus:outline-none">
              <ItemFeed
                input={inputs[v.id]}
                label={v.label}
                empty={
                  q || status || channel ? (
                    'No items match these filters.'
                  ) : v.id === 'inbox' ? (
                    <FirstSteps fallback={v.empty} />
                  ) : (
                    v.empty
                  )
                }
                {...(v.id === 'snoozed' ? { keep: isSnoozed } : {})}
              />
            </TabPanel>
          ))}
        </TabPanels>
      </TabGroup>
    </div>
  );
}
