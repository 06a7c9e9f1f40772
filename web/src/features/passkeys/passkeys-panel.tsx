import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/button';
import { cardClass, TextField } from '../../components/field';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { type AuthOutputs, authTrpc } from '../../lib/trpc';
import { addPasskey, passkeysSupported } from './passkey-ceremonies';

type Passkey = AuthOutputs['accounts']['listPasskeys'][number];

const day = (iso: string) => new Date(iso).toLocaleDateString('en-US', { dateStyle: 'medium' });

function PasskeyRow({ passkey }: { passkey: Passkey }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState<string | null>(null);
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: authTrpc.accounts.listPasskeys.queryKey() });
  const rename = useMutation(
    authTrpc.accounts.renamePasskey.mutationOptions({
      onSuccess: () => {
        setName(null);
        return refresh();
      },
    }),
  );
  const remove = useMutation(authTrpc.accounts.deletePasskey.mutationOptions({ onSuccess: refresh }));
  const save = (event: FormEvent) => {
    event.preventDefault();
    if (name !== null) rename.mutate({ id: passkey.id, name });
  };
  return (
    <li className="flex flex-wrap items-center justify-between gap-2 py-2" aria-label={passkey.name}>
      {name === null ? (
        <div>
          <p className="font-medium text-gray-900">{passkey.name}</p>
          <p className="text-xs text-gray-700">
            Added {day(passkey.created_at)}
            {passkey.last_used_at ? `, last used ${day(passkey.last_used_at)}` : ', never used'}
            {passkey.synced ? ' · synced' : ''}
          </p>
        </div>
      ) : (
        <form onSubmit={save} className="flex items-end gap-2" aria-label={`Rename ${passkey.name}`}>
          <TextField
            label="Passkey name"
            value={name}
            onChange={setName}
            error={errorBody(rename.error)?.fields?.name}
            autoFocus
          />
          <Button type="submit" size="sm" variant="primary" disabled={rename.isPending}>
            Save
          </Button>
        </form>
      )}
      <div className="flex gap-2">
        {name === null && (
          <Button size="sm" onClick={() => setName(passkey.name)}>
            Rename
          </Button>
        )}
        <Button size="sm" variant="danger" onClick={() => remove.mutate({ id: passkey.id })}>
          Delete
        </Button>
      </div>
      {remove.error ? <ErrorNotice error={remove.error} /> : null}
    </li>
  );
}

/** Settings → Passkeys: the signed-in person's passkeys, named, deleted, and one more added. */
export function PasskeysPanel() {
  const queryClient = useQueryClient();
  const list = useQuery(authTrpc.accounts.listPasskeys.queryOptions());
  const [name, setName] = useState('');
  const add = useMutation({
    mutationFn: () => addPasskey(name.trim() || undefined),
    onSuccess: () => {
      setName('');
      return queryClient.invalidateQueries({ queryKey: authTrpc.accounts.listPasskeys.queryKey() });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <section aria-labelledby="passkeys-heading" className={cardClass}>
      <h2 id="passkeys-heading" className="text-base font-semibold text-gray-900">
        Passkeys
      </h2>
      <p className="text-sm text-gray-800">
        Sign in with your device's screen lock or security key instead of an emailed link. Decisions that need
        a fresh verification ask for one of these.
      </p>
      {list.isPending ? (
        <Loading />
      ) : list.error ? (
        <ErrorNotice error={list.error} />
      ) : list.data.length === 0 ? (
        <Notice>You have no passkey yet.</Notice>
      ) : (
        <ul aria-label="Your passkeys" className="divide-y divide-gray-200">
          {list.data.map((passkey) => (
            <PasskeyRow key={passkey.id} passkey={passkey} />
          ))}
        </ul>
      )}
      {passkeysSupported() ? (
        <form
          noValidate
          onSubmit={submit}
          aria-label="Add a passkey"
          className="flex flex-wrap items-end gap-2"
        >
          <TextField
            label="Name of the new passkey"
            value={name}
            onChange={setName}
            placeholder="Work laptop"
          />
          <Button type="submit" variant="primary" disabled={add.isPending}>
            {add.isPending ? 'Waiting for your device…' : 'Add a passkey'}
          </Button>
        </form>
      ) : (
        <Notice>This browser cannot use passkeys.</Notice>
      )}
      {add.error ? <ErrorNotice error={add.error} /> : null}
      {add.isSuccess ? <Notice tone="success">Passkey added.</Notice> : null}
    </section>
  );
}
