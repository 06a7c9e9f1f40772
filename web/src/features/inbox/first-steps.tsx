import { can } from '@beckon/contracts/permissions';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/button';
import { CopyButton } from '../../components/copy-button';
import { TextField } from '../../components/field';
import { ErrorNotice } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { Link } from '../../lib/router';
import { appClient, authClient, trpc } from '../../lib/trpc';
import { snippets } from '../agents/connect-panel';
import { useViewer } from '../items/assignment';

const step = 'space-y-2 rounded-md border border-gray-200 bg-white p-4';
const stepTitle = 'text-sm font-semibold text-gray-900';

/** The agent's key in one go: the agent named here (or the organization's first), then its key. */
function useFirstKey(existing: { id: string; name: string } | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (name: string) => {
      const agent = existing ?? (await appClient.admin.createAgent.mutate({ name }));
      const created = await authClient.accounts.createApiKey.mutate({
        agent_id: agent.id,
        label: 'first key',
        expires_in_days: 90,
      });
      return { agent: agent.name, key: created.key };
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.admin.listAgents.queryKey() }),
  });
}

function KeyStep({ onKey }: { onKey: (key: string) => void }) {
  const agents = useQuery(trpc.admin.listAgents.queryOptions());
  const existing = agents.data?.[0];
  const [name, setName] = useState('');
  const create = useFirstKey(existing);
  const fields = errorBody(create.error)?.fields ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name, { onSuccess: (created) => onKey(created.key) });
  };
  if (create.data) {
    return (
      <li className={step}>
        <h3 className={stepTitle}>1. Your agent and its key</h3>
        <p className="text-sm text-gray-800">
          Agent <strong>{create.data.agent}</strong> has a key. Copy it now: it is shown this once.
        </p>
        <div className="flex items-center gap-2">
          <code
            className="min-w-0 flex-1 truncate rounded bg-gray-100 px-2 py-1 text-xs"
            data-testid="first-key"
          >
            {create.data.key}
          </code>
          <CopyButton text={create.data.key} label="Copy the key" />
        </div>
      </li>
    );
  }
  return (
    <li className={step}>
      <h3 className={stepTitle}>1. Create an agent and its API key</h3>
      <p className="text-sm text-gray-800">
        An agent is whatever sends items: a CI job, a script, an AI assistant. Its key lets it in.
      </p>
      <form noValidate onSubmit={submit} aria-label="First agent" className="space-y-2">
        {existing ? (
          <p className="text-sm text-gray-800">
            Your organization has the agent <strong>{existing.name}</strong>: create a key for it.
          </p>
        ) : (
          <TextField
            label="Agent name"
            value={name}
            onChange={setName}
            error={fields.name}
            placeholder="e.g. deploy-bot"
          />
        )}
        {create.error && !Object.keys(fields).length ? <ErrorNotice error={create.error} /> : null}
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {existing ? 'Create a key' : 'Create agent and key'}
        </Button>
      </form>
    </li>
  );
}

function SendStep({ apiKey }: { apiKey: string | null }) {
  const curl = snippets(window.location.origin, apiKey ?? '<API_KEY>').find((s) => s.id === 'curl');
  if (!curl) return null;
  return (
    <li className={step}>
      <h3 className={stepTitle}>2. Send your first item</h3>
      <p className="text-sm text-gray-800">
        {apiKey ? 'Run this where your agent runs (it holds your key):' : 'Once you have a key, run:'}
      </p>
      <div className="flex items-start gap-2">
        <pre className="min-w-0 flex-1 overflow-x-auto rounded-md bg-gray-900 p-3 text-xs leading-relaxed text-gray-100">
          <code>{curl.code}</code>
        </pre>
        <CopyButton text={curl.code} label="Copy the command" />
      </div>
      <p className="text-sm text-gray-800">
        It shows up here as soon as it arrives. The{' '}
        <Link to="/agents" className="text-indigo-800 underline focus-ring">
          Agents page
        </Link>{' '}
        has the same for MCP, the SDK and the CLI.
      </p>
    </li>
  );
}

/**
 * The empty inbox of an organization that has never had an item: its first agent key, then the
 * command that sends its first item. Any other empty inbox says `fallback`.
 */
export function FirstSteps({ fallback }: { fallback: string }) {
  const stats = useQuery(trpc.stats.get.queryOptions());
  const { permissions } = useViewer();
  const [apiKey, setApiKey] = useState<string | null>(null);
  const plain = <p className="px-4 py-10 text-center text-sm text-gray-700">{fallback}</p>;
  if (!stats.data || stats.data.total > 0) return plain;
  return (
    <section aria-labelledby="first-steps-heading" className="space-y-3 p-4">
      <h2 id="first-steps-heading" className="text-lg font-semibold text-gray-900">
        Connect your first agent
      </h2>
      <p className="text-sm text-gray-800">
        Agents send notifications and questions here; your team answers them, and the answers go back to the
        agent.
      </p>
      {can(permissions, 'agents.manage') ? (
        <ol className="space-y-3">
          <KeyStep onKey={setApiKey} />
          <SendStep apiKey={apiKey} />
        </ol>
      ) : (
        <p className="text-sm text-gray-800">
          An owner or admin of the organization creates agent keys; items appear here once an agent sends
          them.
        </p>
      )}
    </section>
  );
}
