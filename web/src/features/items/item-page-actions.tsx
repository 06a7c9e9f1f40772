import { Menu, MenuButton, MenuHeading, MenuItems, MenuSection, MenuSeparator } from '@headlessui/react';
import { Button, buttonClass } from '../../components/button';
import { ErrorNotice } from '../../components/notice';
import type { Item } from '../../lib/trpc';
import {
  ActionMenuItems,
  availableActions,
  type Entry,
  menuItems,
  type SimpleAction,
  SnoozeMenuItems,
  useItemAction,
  useSnooze,
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
  const { snooze, pick, dialog, error } = useSnooze(item);
  const entries = availableActions(item, Date.now());
  const primary = answerable
    ? undefined
    : PRIMARY.map((action) => entries.find((e) => e.action === action)).find((e): e is Entry => !!e);
  const others = entries.filter((entry) => entry !== primary);
  const run = (action: SimpleAction) => mutation.mutate({ id: item.id, action });
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
            <ActionMenuItems entries={others} run={run} />
            {canSnooze && (
              <>
                {others.length > 0 && <MenuSeparator className="my-1 h-px bg-gray-200" />}
                <MenuSection>
                  <MenuHeading className="px-3 pt-1 text-xs font-semibold text-gray-700">Snooze</MenuHeading>
                  <SnoozeMenuItems onSnooze={snooze} onPick={pick} />
                </MenuSection>
              </>
            )}
          </MenuItems>
        </Menu>
      </section>
      {dialog}
      {mutation.error || error ? <ErrorNotice error={mutation.error ?? error} className="max-w-md" /> : null}
    </div>
  );
}
