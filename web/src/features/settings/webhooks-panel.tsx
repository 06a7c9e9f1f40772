import { EVENT_KINDS } from '@beckon/contracts/items/event-kinds';
import { Checkbox, Field, Fieldset, Label, Legend } from '@headlessui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/button';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { CopyButton } from '../../components/copy-button';
import { cardClass, FieldError, labelClass, TextField } from '../../components/field';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { formatDateTime } from '../../lib/time';
import { type AppOutputs, trpc } from '../../lib/trpc';

type Webhook = AppOutputs['webhooks']['list'][number];
type EventKind = (typeof EVENT_KINDS)[number];

function CreateWebhookForm({ onSecret }: { onSecret: (secret: string) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventKind[]>(['item.created', 'item.answered', 'item.dismissed']);
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: (created) => {
        setName('');
        setUrl('');
        if (created.secret) onSecret(created.secret);
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
      },
    }),
  );
  const fields = errorBody(create.error)?.fields ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name, url, events });
  };
  const toggle = (kind: EventKind, on: boolean) =>
    setEvents((current) => (on ? [...current, kind] : current.filter((k) => k !== kind)));
  return (
    <form noValidate onSubmit={submit} aria-label="New webhook" className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField label="Name" value={name} onChange={setName} error={fields.name} />
        <TextField
          label="URL"
          type="url"
          placeholder="https://example.com/beckon"
          value={url}
          onChange={setUrl}
          error={fields.url}
        />
      </div>
      <Fieldset>
        <Legend className={labelClass}>Events</Legend>
        <div className="mt-1 grid gap-1 sm:grid-cols-3">
          {EVENT_KINDS.map((kind) => (
            <Field key={kind} className="flex items-center gap-2">
              <Checkbox
                checked={events.includes(kind)}
                onChange={(on) => toggle(kind, on)}
                className="size-4 rounded border border-gray-500 bg-white focus-ring data-checked:border-indigo-700 data-checked:bg-indigo-700"
              />
              <Label className="text-sm text-gray-900">{kind}</Label>
            </Field>
          ))}
        </div>
        <FieldError message={fields.events ?? fields['events.0']} label="Events" />
      </Fieldset>
      <Button type="submit" variant="primary" disabled={create.isPending}>
        Create webhook
      </Button>
      {create.error && !Object.keys(fields).length ? <ErrorNotice error={create.error} /> : null}
    </form>
  );
}

function Deliveries() {
  const deliveries = useQuery(trpc.webhooks.deliveries.queryOptions({ limit: 20 }));
  if (deliveries.isPending) return <Loading />;
  if (deliveries.isError) return <ErrorNotice error={deliveries.error} />;
  if (deliveries.data.deliveries.length === 0)
    return <p className="text-sm text-gray-700">No deliveries yet.</p>;
  return (
    <ul className="divide-y divide-gray-200 rounded-md border border-gray-200" aria-label="Recent deliveries">
      {deliveries.data.deliveries.map((d) => {
        const ok = d.status_code !== null && d.status_code >= 200 && d.status_code < 300;
        return (
          <li key={d.id} className="flex flex-wrap gap-x-3 px-3 py-1.5 text-xs text-gray-800">
            <span className={ok ? 'text-green-800' : 'text-red-800'}>
              {d.status_code ?? d.error ?? 'no answer'}
            </span>
            <span>{d.event}</span>
            <span>{d.kind}</span>
            <span>attempt {d.attempt}</span>
            <span className="min-w-0 flex-1 truncate">{d.url}</span>
            <span>{formatDateTime(d.created_at)}</span>
          </li>
        );
      })}
    </ul>
  );
}

/** Outbound webhooks: create (the generated secret shown once), list, delete; recent attempts. */
export function WebhooksPanel() {
  const queryClient = useQueryClient();
  const webhooks = useQuery(trpc.webhooks.list.queryOptions());
  const [secret, setSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const remove = useMutation(
    trpc.webhooks.remove.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
    }),
  );
  return (
    <div className="space-y-4">
      <section className={cardClass} aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading" className="text-lg font-semibold text-gray-900">
          Webhooks
        </h2>
        <CreateWebhookForm onSecret={setSecret} />
        {secret && (
          <Notice>
            <span className="block">Its signing secret, shown this once:</span>
            <span className="mt-1 flex items-center gap-2">
              <code className="min-w-0 flex-1 truncate font-mono">{secret}</code>
              <CopyButton text={secret} />
            </span>
          </Notice>
        )}
        {remove.error ? <ErrorNotice error={remove.error} /> : null}
        {webhooks.isPending ? (
          <Loading />
        ) : webhooks.isError ? (
          <ErrorNotice error={webhooks.error} />
        ) : webhooks.data.length === 0 ? (
          <p className="text-sm text-gray-700">No webhooks yet.</p>
        ) : (
          <ul className="divide-y divide-gray-200 rounded-md border border-gray-200" aria-label="Webhooks">
            {webhooks.data.map((hook) => (
              <li key={hook.id} className="flex flex-wrap items-center gap-2 px-3 py-2">
                <div className="min-w-0 flex-1">
                  <p className="text-sm font-medium text-gray-900">
                    {hook.name}
                    {!hook.active && <span className="ml-2 text-xs font-normal text-red-800">Disabled</span>}
                  </p>
                  <p className="truncate text-xs text-gray-700">{hook.url}</p>
                  <p className="text-xs text-gray-700">{hook.events.join(', ')}</p>
                  {hook.disabled_reason && <p className="text-xs text-red-800">{hook.disabled_reason}</p>}
                </div>
                <Button
                  size="sm"
                  aria-label={`Delete webhook ${hook.name}`}
                  onClick={() => setDeleting(hook)}
                >
                  Delete
                </Button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className={cardClass} aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading" className="text-lg font-semibold text-gray-900">
          Recent deliveries
        </h2>
        <Deliveries />
      </section>
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        onConfirm={() => deleting && remove.mutate({ id: deleting.id })}
        onClose={() => setDeleting(null)}
      >
        {deleting?.name} receives nothing more, pending deliveries included.
      </ConfirmDialog>
    </div>
  );
}
