import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../../components/button';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice, Loading } from '../../components/notice';
import { Link } from '../../lib/router';
import { formatDateTime } from '../../lib/time';
import { type AppOutputs, trpc } from '../../lib/trpc';

type Grant = AppOutputs['gate']['list'][number];

/**
 * The gate grants in force ("allow for N minutes" answers): which agent may run which rule
 * until when, each with the request that granted it and a way to end it at once.
 */
export function GrantList({ agents }: { agents: { id: string; name: string }[] }) {
  const queryClient = useQueryClient();
  const grants = useQuery(trpc.gate.list.queryOptions());
  const [revoking, setRevoking] = useState<Grant | null>(null);
  const revoke = useMutation(
    trpc.gate.revoke.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.gate.list.queryKey() }),
    }),
  );
  const agentName = (grant: Grant) =>
    grant.agent_id === null
      ? 'a person’s own CLI'
      : (agents.find((agent) => agent.id === grant.agent_id)?.name ?? 'a deleted agent');
  if (grants.isPending) return <Loading />;
  if (grants.isError) return <ErrorNotice error={grants.error} />;
  if (grants.data.length === 0) {
    return (
      <p className="text-sm text-gray-700">
        No grants in force. When a person answers a gate request “Allow for N minutes”, the same call runs
        without asking until then, and it shows here.
      </p>
    );
  }
  return (
    <>
      {revoke.error ? <ErrorNotice error={revoke.error} /> : null}
      <ul className="divide-y divide-gray-200 rounded-md border border-gray-200" aria-label="Gate grants">
        {grants.data.map((grant) => (
          <li key={grant.id} className="flex flex-wrap items-center gap-2 px-3 py-2">
            <div className="min-w-0 flex-1">
              <p className="text-sm font-medium text-gray-900">
                <code className="font-mono">{grant.rule}</code>{' '}
                <span className="font-normal text-gray-700">· {agentName(grant)}</span>
              </p>
              <p className="text-xs text-gray-700">
                Until {formatDateTime(grant.expires_at)}
                {grant.note ? ` · “${grant.note}”` : ''} ·{' '}
                <Link to={`/items/${grant.item_id}`} className="text-indigo-800 underline focus-ring">
                  the request
                </Link>
              </p>
            </div>
            <Button size="sm" aria-label={`Revoke grant ${grant.rule}`} onClick={() => setRevoking(grant)}>
              Revoke
            </Button>
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this grant?"
        confirmLabel="Revoke grant"
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onClose={() => setRevoking(null)}
      >
        The next {revoking?.rule} call of {revoking ? agentName(revoking) : ''} asks a person again.
      </ConfirmDialog>
    </>
  );
}
