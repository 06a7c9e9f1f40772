import type { Viewer } from '@beckon/contracts/items/list-rules';
import { can } from '@beckon/contracts/permissions';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from '../../components/button';
import { ErrorNotice } from '../../components/notice';
import { formatDateTime, formatDuration, useNow } from '../../lib/time';
import { appClient, authTrpc, type Item } from '../../lib/trpc';
import { applyItem } from './item-cache';
import { namedIn } from './names';

type Assignee = Item['assignees'][number];
type Step = Item['escalation'][number];

/** The signed-in person, as the list rule's viewer, and their permissions. */
export function useViewer(): { viewer: Viewer | undefined; permissions: string[] } {
  const me = useQuery(authTrpc.accounts.me.queryOptions());
  return {
    viewer: me.data ? { type: 'user', id: me.data.user.id } : undefined,
    permissions: me.data?.permissions ?? [],
  };
}

/** An assignee or the claimer, named from the item ("you" for the signed-in person). */
const nameIn =
  (item: Item, viewer: Viewer | undefined) =>
  (who: Assignee | NonNullable<Item['claimed_by']>): string => {
    if (who.type === 'role') return `role ${who.name}`;
    if (viewer && who.type === viewer.type && who.id === viewer.id) return 'you';
    return namedIn(item.names, who);
  };

const stepLabel = (step: Step, name: (who: Assignee) => string) =>
  step.action === 'remind' ? 'Reminder' : `Escalation to ${step.to.map(name).join(', ')}`;

/** The policy's next step and the time left before it (ticking every second in its last hour). */
export function NextStep({ item, name }: { item: Item; name: (who: Assignee) => string }) {
  const at = item.next_escalation_at;
  const due = at ? new Date(at).getTime() : 0;
  const now = useNow(due - Date.now() < 3600_000 ? 1000 : 30_000);
  const step = item.escalation[item.escalation_step];
  if (!at || !step) return null;
  const left = due - now;
  return (
    <p className="text-sm text-gray-800" data-testid="next-step">
      Next: {stepLabel(step, name)}{' '}
      <time dateTime={at} title={formatDateTime(at)} className="font-medium">
        {left > 0 ? `in ${formatDuration(left)}` : 'now'}
      </time>
      <span className="text-gray-700">
        {' '}
        (step {item.escalation_step + 1} of {item.escalation.length})
      </span>
    </p>
  );
}

/** Claim or release, as the server allows it (releasing someone else's claim needs org.manage). */
function ClaimButton({ item, viewer, permissions }: { item: Item; viewer?: Viewer; permissions: string[] }) {
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: (action: 'claim' | 'unclaim') => appClient.items[action].mutate({ id: item.id }),
    onSuccess: (changed) => applyItem(queryClient, changed),
  });
  const claimer = item.claimed_by;
  const mine = claimer && viewer && claimer.type === viewer.type && claimer.id === viewer.id;
  const mayWrite = can(permissions, 'items.write');
  const action =
    claimer === null
      ? item.status === 'open' && mayWrite
        ? 'claim'
        : null
      : mine || (mayWrite && can(permissions, 'org.manage'))
        ? 'unclaim'
        : null;
  if (!action) return null;
  return (
    <div>
      <Button size="sm" disabled={mutation.isPending} onClick={() => mutation.mutate(action)}>
        {action === 'claim' ? 'Claim' : mine ? 'Release my claim' : 'Release the claim'}
      </Button>
      {mutation.error && <ErrorNotice error={mutation.error} />}
    </div>
  );
}

/** Who the item is for, who is working on it, and what its policy does next (the item page). */
export function Assignment({ item }: { item: Item }) {
  const { viewer, permissions } = useViewer();
  const name = nameIn(item, viewer);
  return (
    <section aria-label="Assignment" className="space-y-1 text-sm text-gray-800">
      <p>
        Assigned to:{' '}
        <span className="font-medium text-gray-900">
          {item.assignees.length ? item.assignees.map(name).join(', ') : 'everyone'}
        </span>
      </p>
      <div className="flex flex-wrap items-center gap-2">
        {item.claimed_by ? (
          <p>
            Claimed by <span className="font-medium text-gray-900">{name(item.claimed_by)}</span>
            {item.claimed_at && (
              <span className="text-gray-700"> since {formatDateTime(item.claimed_at)}</span>
            )}
          </p>
        ) : (
          item.status === 'open' && <p>Nobody has claimed it.</p>
        )}
        <ClaimButton item={item} viewer={viewer} permissions={permissions} />
      </div>
      <NextStep item={item} name={name} />
    </section>
  );
}

/** A short line for a list row: assigned to you, claimed by you or by someone. */
export function AssignmentBadge({ item }: { item: Item }) {
  const { viewer } = useViewer();
  const mine = (who: { type: string; id?: string } | null) =>
    !!who && !!viewer && who.type === viewer.type && who.id === viewer.id;
  const parts = [
    item.assignees.some(mine) ? 'Assigned to you' : item.assignees.length ? 'Assigned' : '',
    item.claimed_by ? (mine(item.claimed_by) ? 'Claimed by you' : 'Claimed') : '',
  ].filter(Boolean);
  if (parts.length === 0) return null;
  return <span className="font-medium text-gray-800">{parts.join(' · ')}</span>;
}
