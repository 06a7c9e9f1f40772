import {
  Menu,
  MenuButton,
  MenuHeading,
  MenuItem,
  MenuItems,
  MenuSection,
  MenuSeparator,
} from '@headlessui/react';
import { useState } from 'react';
import { Button, buttonClass } from '../../components/button';
import { ErrorNotice } from '../../components/notice';
import { formatDateTime } from '../../lib/time';
import type { Item } from '../../lib/trpc';
import {
  availableActions,
  type Entry,
  menuItem,
  menuItems,
  presets,
  type SimpleAction,
  SnoozeDialog,
  useItemAction,
} from './item-actions';

/** What the page offers first, when the item has no answer to give: the likeliest next move. */
const PRIMARY: SimpleAction[] = ['ack', 'restore', 'unsnooze', 'unarchive', 'archive'];

/**
 * The item page's actions: one primary button (none while the form is waiting for this person's
 * answer: "Submit answer" is then the page's primary action), and every other action, snoozing
 * included, in one "More actions" menu (Headless UI's menu: arrow keys, Escape, focus returned,
 * aria-expanded and the menu roles).
 */
export function ItemPageActions({ item, answerable }: { item: Item; answerable: boolean }) {
  const mutation = useItemAction();
  const [picking, setPicking] = useState(false);
  const entries = availableActions(item, Date.now());
  const primary = answerable
    ? undefined
    : PRIMARY.map((action) => entries.find((e) => e.action === action)).find((e): e is Entry => !!e);
  const others = entries.filter((entry) => entry !== primary);
  const run = (action: SimpleAction) => mutation.mutate({ id: item.id, action });
  const snooze = (until: Date) =>
    mutation.mutate({ id: item.id, action: 'snooze', until }, { onSuccess: () => setPicking(false) });
  const canSnooze = item.status !== 'archived';
  return (
    <div className="flex flex-col items-start gap-1">
      <section aria-label="Item actions" className="flex flex-wrap items-center gap-1.5">
        {primary && (
          <Button variant="primary" disabled={mutation.isPending} onClick={() => run(primary.action)}>
            {primary.label}
          </Button>
        )}
        <Menu>
          <MenuButton className={buttonClass('secondary')}>More actions</MenuButton>
          <MenuItems anchor="bottom start" className={menuItems}>
            {others.map((entry) => (
              <MenuItem key={entry.action}>
                <button type="button" className={menuItem} onClick={() => run(entry.action)}>
                  {entry.label}
                </button>
              </MenuItem>
            ))}
            {canSnooze && (
              <>
                {others.length > 0 && <MenuSeparator className="my-1 h-px bg-gray-200" />}
                <MenuSection>
                  <MenuHeading className="px-3 pt-1 text-xs font-semibold text-gray-700">Snooze</MenuHeading>
                  {presets().map((preset) => (
                    <MenuItem key={preset.label}>
                      <button type="button" className={menuItem} onClick={() => snooze(preset.until)}>
                        {preset.label}
                        <span className="block text-xs text-gray-700">
                          {formatDateTime(preset.until.toISOString())}
                        </span>
                      </button>
                    </MenuItem>
                  ))}
                  <MenuItem>
                    <button type="button" className={menuItem} onClick={() => setPicking(true)}>
                      Pick a date and time…
                    </button>
                  </MenuItem>
                </MenuSection>
              </>
            )}
          </MenuItems>
        </Menu>
      </section>
      <SnoozeDialog
        open={picking}
        onClose={() => setPicking(false)}
        onSnooze={snooze}
        error={picking ? mutation.error : null}
        pending={mutation.isPending}
      />
      {!picking && mutation.error ? <ErrorNotice error={mutation.error} className="max-w-md" /> : null}
    </div>
  );
}
