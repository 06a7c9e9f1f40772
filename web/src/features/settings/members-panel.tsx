import { can } from '@beckon/contracts/permissions';
import { Select } from '@headlessui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../../components/button';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { cardClass } from '../../components/field';
import { ErrorNotice, Loading } from '../../components/notice';
import { formatDateTime } from '../../lib/time';
import { type AppOutputs, authTrpc, trpc } from '../../lib/trpc';

type Member = AppOutputs['admin']['listMembers'][number];

/** Members of the organization: their roles (changed in place) and their removal. */
export function MembersPanel() {
  const queryClient = useQueryClient();
  const me = useQuery(authTrpc.accounts.me.queryOptions());
  const members = useQuery(trpc.admin.listMembers.queryOptions());
  const roles = useQuery(trpc.admin.listRoles.queryOptions());
  const [removing, setRemoving] = useState<Member | null>(null);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.admin.listMembers.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.admin.listRoles.queryKey() });
  };
  const changeRole = useMutation(trpc.admin.changeMemberRole.mutationOptions({ onSettled: refresh }));
  const remove = useMutation(trpc.admin.removeMember.mutationOptions({ onSettled: refresh }));
  const permissions = me.data?.permissions ?? [];
  const mayChange = can(permissions, 'users.change_role');
  const mayRemove = can(permissions, 'users.remove');

  if (members.isPending) return <Loading />;
  if (members.isError) return <ErrorNotice error={members.error} />;
  return (
    <section className={cardClass} aria-labelledby="members-heading">
      <h2 id="members-heading" className="text-lg font-semibold text-gray-900">
        Members
      </h2>
      {changeRole.error ? <ErrorNotice error={changeRole.error} /> : null}
      {remove.error ? <ErrorNotice error={remove.error} /> : null}
      <ul className="divide-y divide-gray-200 rounded-md border border-gray-200" aria-label="Members">
        {members.data.map((member) => (
          <li key={member.user_id} className="flex flex-wrap items-center gap-2 px-3 py-2">
            <div className="min-w-0 flex-1">
              <p className="truncate text-sm font-medium text-gray-900">
                {member.name ?? member.email}
                {member.user_id === me.data?.user.id && (
                  <span className="font-normal text-gray-700"> (you)</span>
                )}
              </p>
              <p className="truncate text-xs text-gray-700">
                {member.email} · joined {formatDateTime(member.joined_at)}
              </p>
            </div>
            {mayChange && roles.data ? (
              <Select
                aria-label={`Role of ${member.email}`}
                value={member.role.id}
                disabled={changeRole.isPending}
                onChange={(event) =>
                  changeRole.mutate({ user_id: member.user_id, role_id: event.target.value })
                }
                className="rounded-md border border-gray-400 bg-white px-2 py-1.5 text-sm text-gray-900 focus-ring"
              >
                {roles.data.map((role) => (
                  <option key={role.id} value={role.id}>
                    {role.name}
                  </option>
                ))}
              </Select>
            ) : (
              <span className="text-sm text-gray-800">{member.role.name}</span>
            )}
            {mayRemove && (
              <Button size="sm" aria-label={`Remove ${member.email}`} onClick={() => setRemoving(member)}>
                Remove
              </Button>
            )}
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={removing !== null}
        title="Remove this member?"
        confirmLabel="Remove member"
        onConfirm={() => removing && remove.mutate({ user_id: removing.user_id })}
        onClose={() => setRemoving(null)}
      >
        {removing?.email} leaves the organization: their sessions here and their API keys stop working at
        once.
      </ConfirmDialog>
    </section>
  );
}
