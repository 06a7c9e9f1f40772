import { isSnoozed } from '@beckon/contracts/items/list-rules';
import { Field, Input, Label, Menu, MenuButton, MenuItem, MenuItems } from '@headlessui/react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, buttonClass } from '../../components/button';
import { Modal } from '../../components/modal';
import { ErrorNotice } from '../../components/notice';
import { formatDateTime, toLocalInput } from '../../lib/time';
import { appClient, type Item } from '../../lib/trpc';
import { applyItem } from './item-cache';

export type SimpleAction =
  | 'ack'
  | 'dismiss'
  | 'restore'
  | 'unsnooze'
  | 'pin'
  | 'unpin'
  | 'archive'
  | 'unarchive';
type ActionInput = { id: string; action: SimpleAction } | { id: string; action: 'snooze'; until: Date };

/** One mutation for every status-machine action; the answered item updates every cached view. */
export function useItemAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ActionInput) =>
      input.action === 'snooze'
        ? appClient.items.snooze.mutate({ id: input.id, until: input.until.toISOString() })
        : appClient.items[input.action].mutate({ id: input.id }),
    onSuccess: (item) => applyItem(queryClient, item),
  });
}

const atHour = (date: Date, hours: number) => {
  const copy = new Date(date);
  copy.setHours(hours, 0, 0, 0);
  return copy;
};

/** Snooze presets, computed when the menu opens. */
function presets(now = new Date()): { label: string; until: Date }[] {
  const tomorrow = atHour(new Date(now.getTime() + 24 * 3600_000), 9);
  const monday = atHour(now, 9);
  monday.setDate(monday.getDate() + ((8 - monday.getDay()) % 7 || 7));
  return [
    { label: 'In 1 hour', until: new Date(now.getTime() + 3600_000) },
    { label: 'In 4 hours', until: new Date(now.getTime() + 4 * 3600_000) },
    { label: 'Tomorrow at 9:00', until: tomorrow },
    { label: 'Next Monday at 9:00', until: monday },
  ];
}

export const menuItems =
  'z-40 mt-1 w-56 rounded-md bg-white p-1 shadow-lg ring-1 ring-gray-200 focus:outline-none [--anchor-gap:4px]';
export const menuItem =
  'block w-full rounded px-3 py-2 text-left text-sm text-gray-900 data-focus:bg-indigo-50';

function SnoozeDialog({
  open,
  onClose,
  onSnooze,
  error,
  pending,
}: {
  open: boolean;
  onClose: () => void;
  onSnooze: (until: Date) => void;
  error: unknown;
  pending: boolean;
}) {
  const [value, setValue] = useState(() => toLocalInput(new Date(Date.now() + 24 * 3600_000)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const until = new Date(value);
    if (!Number.isNaN(until.getTime())) onSnooze(until);
  };
  return (
    <Modal open={open} onClose={onClose} title="Snooze until">
      <form onSubmit={submit} className="space-y-4">
        <Field>
          <Label className="block text-sm font-medium text-gray-900">Date and time</Label>
          <Input
            type="datetime-local"
            required
            min={toLocalInput(new Date())}
            value={value}
            onChange={(event) => setValue(event.target.value)}
            className="mt-1 block w-full rounded-md border border-gray-400 px-3 py-2 text-sm focus-ring"
          />
        </Field>
        {error ? <ErrorNotice error={error} /> : null}
        <div className="flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={pending}>
            Snooze
          </Button>
        </div>
      </form>
    </Modal>
  );
}

/** The snooze presets, then "Pick a date and time…", as items of an open menu. */
export function SnoozeMenuItems({
  onSnooze,
  onPick,
}: {
  onSnooze: (until: Date) => void;
  onPick: () => void;
}) {
  return (
    <>
      {presets().map((preset) => (
        <MenuItem key={preset.label}>
          <button type="button" className={menuItem} onClick={() => onSnooze(preset.until)}>
            {preset.label}
            <span className="block text-xs text-gray-700">{formatDateTime(preset.until.toISOString())}</span>
          </button>
        </MenuItem>
      ))}
      <MenuItem>
        <button type="button" className={menuItem} onClick={onPick}>
          Pick a date and time…
        </button>
      </MenuItem>
    </>
  );
}

/** One menu item per action. */
export function ActionMenuItems({ entries, run }: { entries: Entry[]; run: (action: SimpleAction) => void }) {
  return entries.map((entry) => (
    <MenuItem key={entry.action}>
      <button type="button" className={menuItem} onClick={() => run(entry.action)}>
        {entry.label}
      </button>
    </MenuItem>
  ));
}

/** Snoozing an item: until a preset, or a picked time (its dialog, to render once); errors. */
export function useSnooze(item: Item) {
  const mutation = useItemAction();
  const [picking, setPicking] = useState(false);
  const snooze = (until: Date) =>
    mutation.mutate({ id: item.id, action: 'snooze', until }, { onSuccess: () => setPicking(false) });
  const dialog = (
    <SnoozeDialog
      open={picking}
      onClose={() => setPicking(false)}
      onSnooze={snooze}
      error={picking ? mutation.error : null}
      pending={mutation.isPending}
    />
  );
  return { snooze, pick: () => setPicking(true), dialog, error: picking ? null : mutation.error };
}

function SnoozeMenu({ item }: { item: Item }) {
  const { snooze, pick, dialog, error } = useSnooze(item);
  return (
    <>
      <Menu>
        <MenuButton className={buttonClass('secondary', 'sm')} aria-label={`Snooze ${item.title}`}>
          Snooze
        </MenuButton>
        <MenuItems anchor="bottom end" className={menuItems}>
          <SnoozeMenuItems onSnooze={snooze} onPick={pick} />
        </MenuItems>
      </Menu>
      {dialog}
      {error ? <ErrorNotice error={error} className="max-w-xs" /> : null}
    </>
  );
}

export type Entry = { action: SimpleAction; label: string };

/** The actions the status machine allows now (decisions.md §2). */
export function availableActions(item: Item, now: number): Entry[] {
  const archived = item.status === 'archived';
  const snoozed = isSnoozed(item, now);
  const entries: Entry[] = [];
  if (!archived && item.acked_at === null) entries.push({ action: 'ack', label: 'Acknowledge' });
  if (item.status === 'open' || item.status === 'answered')
    entries.push({ action: 'dismiss', label: 'Dismiss' });
  if (['dismissed', 'expired', 'withdrawn'].includes(item.status))
    entries.push({ action: 'restore', label: 'Restore' });
  if (!archived && snoozed) entries.push({ action: 'unsnooze', label: 'Unsnooze' });
  entries.push(item.pinned ? { action: 'unpin', label: 'Unpin' } : { action: 'pin', label: 'Pin' });
  entries.push(
    archived ? { action: 'unarchive', label: 'Unarchive' } : { action: 'archive', label: 'Archive' },
  );
  return entries;
}

/**
 * The item's actions in the inbox: Snooze and a compact "Actions" menu per row (the item page has
 * its own, item-page-actions.tsx). Errors (e.g. a 409 when someone else moved the item first) are
 * shown as the API words them.
 */
export function ItemActions({ item }: { item: Item }) {
  const mutation = useItemAction();
  const entries = availableActions(item, Date.now());
  const run = (action: SimpleAction) => mutation.mutate({ id: item.id, action });
  return (
    <div className="flex flex-col items-end gap-1">
      <div className="flex flex-wrap items-center justify-end gap-1.5">
        {item.status !== 'archived' && <SnoozeMenu item={item} />}
        <Menu>
          <MenuButton className={buttonClass('secondary', 'sm')} aria-label={`Actions for ${item.title}`}>
            Actions
          </MenuButton>
          <MenuItems anchor="bottom end" className={menuItems}>
            <ActionMenuItems entries={entries} run={run} />
          </MenuItems>
        </Menu>
      </div>
      {mutation.error ? <ErrorNotice error={mutation.error} className="max-w-xs" /> : null}
    </div>
  );
}
