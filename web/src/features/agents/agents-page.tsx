import { Field, Input, Label, Select } from '@headlessui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/button';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { CopyButton } from '../../components/copy-button';
import { cardClass, controlClass, FieldError, labelClass, TextField } from '../../components/field';
import { Modal } from '../../components/modal';
import { ErrorNotice, Loading } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { formatDateTime } from '../../lib/time';
import { type AuthOutputs, authTrpc, trpc } from '../../lib/trpc';
import { ConnectPanel } from './connect-panel';
import { GrantList } from './grant-list';

type CreatedKey = AuthOutputs['accounts']['createApiKey'];
type ApiKey = AuthOutputs['accounts']['listApiKeys'][number];

function CreateAgentForm() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation(
    trpc.admin.createAgent.mutationOptions({
      onSuccess: () => {
        setName('');
        setDescription('');
        void queryClient.invalidateQueries({ queryKey: trpc.admin.listAgents.queryKey() });
      },
    }),
  );
  const fields = errorBody(create.error)?.fields ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name, ...(description.trim() ? { description: description.trim() } : {}) });
  };
  return (
    <form
      noValidate
      onSubmit={submit}
      aria-label="New agent"
      className="grid gap-3 sm:grid-cols-[1fr_1fr_auto] sm:items-end"
    >
      <TextField label="Agent name" value={name} onChange={setName} error={fields.name} />
      <TextField
        label="Description (optional)"
        value={description}
        onChange={setDescription}
        error={fields.description}
      />
      <Button type="submit" variant="primary" disabled={create.isPending}>
        Create agent
      </Button>
      {create.error && !Object.keys(fields).length ? (
        <ErrorNotice error={create.error} className="sm:col-span-3" />
      ) : null}
    </form>
  );
}

function CreateKeyForm({
  agents,
  onCreated,
}: {
  agents: { id: string; name: string }[];
  onCreated: (key: CreatedKey) => void;
}) {
  const queryClient = useQueryClient();
  const [agentId, setAgentId] = useState('');
  const [label, setLabel] = useState('');
  const [days, setDays] = useState('90');
  const create = useMutation(
    authTrpc.accounts.createApiKey.mutationOptions({
      onSuccess: (key) => {
        setLabel('');
        onCreated(key);
        void queryClient.invalidateQueries({ queryKey: authTrpc.accounts.listApiKeys.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.admin.listAgents.queryKey() });
      },
    }),
  );
  const fields = errorBody(create.error)?.fields ?? {};
  const selected = agentId || agents[0]?.id || '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ agent_id: selected, label, expires_in_days: Number(days) });
  };
  return (
    <form
      noValidate
      onSubmit={submit}
      aria-label="New API key"
      className="grid gap-3 sm:grid-cols-[1fr_1fr_8rem_auto] sm:items-end"
    >
      <Field>
        <Label className={labelClass}>Agent</Label>
        <Select
          value={selected}
          onChange={(e) => setAgentId(e.target.value)}
          invalid={'agent_id' in fields}
          className={controlClass}
        >
          {agents.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.name}
            </option>
          ))}
        </Select>
        <FieldError message={fields.agent_id} label="Agent" />
      </Field>
      <TextField
        label="Key label"
        value={label}
        onChange={setLabel}
        error={fields.label}
        placeholder="e.g. ci"
      />
      <TextField
        label="Expires in (days)"
        type="number"
        min={1}
        max={3650}
        value={days}
        onChange={setDays}
        error={fields.expires_in_days}
      />
      <Button type="submit" variant="primary" disabled={create.isPending || agents.length === 0}>
        Create key
      </Button>
      {create.error && !Object.keys(fields).length ? (
        <ErrorNotice error={create.error} className="sm:col-span-4" />
      ) : null}
    </form>
  );
}

function keyState(key: ApiKey): { label: string; active: boolean } {
  if (key.revoked_at) return { label: `Revoked ${formatDateTime(key.revoked_at)}`, active: false };
  if (key.expires_at && new Date(key.expires_at).getTime() <= Date.now())
    return { label: 'Expired', active: false };
  return {
    label: key.expires_at ? `Expires ${formatDateTime(key.expires_at)}` : 'Never expires',
    active: true,
  };
}

function KeyList() {
  const queryClient = useQueryClient();
  const keys = useQuery(authTrpc.accounts.listApiKeys.queryOptions());
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const revoke = useMutation(
    authTrpc.accounts.revokeApiKey.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: authTrpc.accounts.listApiKeys.queryKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.admin.listAgents.queryKey() });
      },
    }),
  );
  if (keys.isPending) return <Loading />;
  if (keys.isError) return <ErrorNotice error={keys.error} />;
  if (keys.data.length === 0) return <p className="text-sm text-gray-700">No API keys yet.</p>;
  return (
    <>
      {revoke.error ? <ErrorNotice error={revoke.error} /> : null}
      <ul className="divide-y divide-gray-200 rounded-md border border-gray-200" aria-label="API keys">
        {keys.data.map((key) => {
          const state = keyState(key);
          return (
            <li key={key.id} className="flex flex-wrap items-center gap-2 px-3 py-2">
              <div className="min-w-0 flex-1">
                <p className="text-sm font-medium text-gray-900">
                  {key.label} <span className="font-normal text-gray-700">· {key.agent_name}</span>
                </p>
                <p className={`text-xs ${state.active ? 'text-gray-700' : 'text-red-800'}`}>
                  Created {formatDateTime(key.created_at)} · {state.label}
                </p>
              </div>
              {state.active && (
                <Button size="sm" aria-label={`Revoke key ${key.label}`} onClick={() => setRevoking(key)}>
                  Revoke
                </Button>
              )}
            </li>
          );
        })}
      </ul>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        onConfirm={() => revoking && revoke.mutate({ key_id: revoking.id })}
        onClose={() => setRevoking(null)}
      >
        {revoking?.label} ({revoking?.agent_name}) stops working at once. This cannot be undone.
      </ConfirmDialog>
    </>
  );
}

function NewKeyDialog({ created, onClose }: { created: CreatedKey | null; onClose: () => void }) {
  return (
    <Modal open={created !== null} onClose={onClose} title="Your new API key">
      <div className="space-y-3">
        <p className="text-sm text-gray-800">
          Copy it now: it is shown this once and never again. It acts as its agent, with your role limited to
          reading and writing items.
        </p>
        <Field>
          <Label className={labelClass}>API key</Label>
          <div className="mt-1 flex gap-2">
            <Input
              readOnly
              value={created?.key ?? ''}
              onFocus={(e) => e.target.select()}
              className="block w-full min-w-0 rounded-md border border-gray-400 bg-gray-50 px-3 py-2 font-mono text-xs text-gray-900 focus-ring"
            />
            <CopyButton text={created?.key ?? ''} />
          </div>
        </Field>
        <div className="flex justify-end">
          <Button variant="primary" onClick={onClose}>
            Done
          </Button>
        </div>
      </div>
    </Modal>
  );
}

export function AgentsPage() {
  const agents = useQuery(trpc.admin.listAgents.queryOptions());
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [lastKey, setLastKey] = useState<string | null>(null);
  return (
    <div className="mx-auto max-w-5xl space-y-4 p-3 sm:p-4">
      <h1 className="text-xl font-semibold text-gray-900">Agents and API keys</h1>
      <section className={cardClass} aria-labelledby="agents-heading">
        <h2 id="agents-heading" className="text-lg font-semibold text-gray-900">
          Agents
        </h2>
        <CreateAgentForm />
        {agents.isPending ? (
          <Loading />
        ) : agents.isError ? (
          <ErrorNotice error={agents.error} />
        ) : agents.data.length === 0 ? (
          <p className="text-sm text-gray-700">
            No agents yet. An agent is who asks: each API key acts as one.
          </p>
        ) : (
          <ul className="divide-y divide-gray-200 rounded-md border border-gray-200" aria-label="Agents">
            {agents.data.map((agent) => (
              <li key={agent.id} className="px-3 py-2">
                <p className="text-sm font-medium text-gray-900">{agent.name}</p>
                <p className="text-xs text-gray-700">
                  {agent.description ? `${agent.description} · ` : ''}
                  {agent.active_keys} active {agent.active_keys === 1 ? 'key' : 'keys'} · created{' '}
                  {formatDateTime(agent.created_at)}
                </p>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className={cardClass} aria-labelledby="keys-heading">
        <h2 id="keys-heading" className="text-lg font-semibold text-gray-900">
          API keys
        </h2>
        {agents.data && agents.data.length > 0 ? (
          <CreateKeyForm
            agents={agents.data}
            onCreated={(key) => {
              setCreated(key);
              setLastKey(key.key);
            }}
          />
        ) : (
          <p className="text-sm text-gray-700">Create an agent first: every key belongs to one.</p>
        )}
        <KeyList />
      </section>
      <section className={cardClass} aria-labelledby="grants-heading">
        <h2 id="grants-heading" className="text-lg font-semibold text-gray-900">
          Gate grants
        </h2>
        {agents.data ? <GrantList agents={agents.data} /> : <Loading />}
      </section>
      <div className={cardClass}>
        <ConnectPanel apiKey={lastKey} />
      </div>
      <NewKeyDialog created={created} onClose={() => setCreated(null)} />
    </div>
  );
}
