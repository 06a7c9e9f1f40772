import { Menu, MenuButton, MenuItem, MenuItems, MenuSeparator } from '@headlessui/react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button, buttonClass } from '../../components/button';
import { TextField } from '../../components/field';
import { Modal } from '../../components/modal';
import { ErrorNotice } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { authTrpc } from '../../lib/trpc';
import { startSession } from '../auth/sign-in';

const item =
  'flex w-full items-center justify-between gap-3 rounded px-3 py-2 text-left text-sm text-gray-900 data-focus:bg-indigo-50';

/** POST /auth/switch-org: the new session replaces the current token, on the inbox. */
const useSwitchOrg = () =>
  useMutation(
    authTrpc.accounts.switchOrg.mutationOptions({ onSuccess: (grant) => startSession(grant.token, '/') }),
  );

/** POST /auth/orgs (the slug is derived from the name), then a session in the new organization. */
function NewOrgDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [name, setName] = useState('');
  const switchOrg = useSwitchOrg();
  const create = useMutation(
    authTrpc.accounts.createOrg.mutationOptions({ onSuccess: (org) => switchOrg.mutate({ org_id: org.id }) }),
  );
  const fields = errorBody(create.error)?.fields ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name });
  };
  return (
    <Modal open={open} onClose={onClose} title="New organization">
      <form noValidate onSubmit={submit} aria-label="New organization" className="space-y-4">
        <TextField label="Organization name" value={name} onChange={setName} error={fields.name} autoFocus />
        {(create.error && !Object.keys(fields).length) || switchOrg.error ? (
          <ErrorNotice error={create.error ?? switchOrg.error} />
        ) : null}
        <div className="flex justify-end gap-2">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" disabled={create.isPending || switchOrg.isPending}>
            Create and switch
          </Button>
        </div>
      </form>
    </Modal>
  );
}

/** GET /auth/orgs to switch between, and a new organization. */
export function OrgSwitcher({ currentOrgId, currentName }: { currentOrgId: string; currentName: string }) {
  const orgs = useQuery(authTrpc.accounts.listOrgs.queryOptions());
  const switchOrg = useSwitchOrg();
  const [creating, setCreating] = useState(false);
  return (
    <div className="min-w-0">
      <Menu>
        <MenuButton
          className={`${buttonClass('secondary', 'sm')} max-w-44 sm:max-w-64`}
          aria-label={`Organization: ${currentName}. Switch organization`}
          // Organizations joined or created elsewhere since the page loaded show up on opening.
          onClick={() => void orgs.refetch()}
        >
          <span className="truncate">{currentName}</span>
          <span aria-hidden="true">▾</span>
        </MenuButton>
        <MenuItems
          anchor="bottom end"
          className="z-40 mt-1 w-72 rounded-md bg-white p-1 shadow-lg ring-1 ring-gray-200 focus:outline-none [--anchor-gap:4px]"
        >
          <div className="px-3 py-1.5 text-xs font-medium text-gray-700">Switch organization</div>
          <MenuSeparator className="my-1 h-px bg-gray-200" />
          {orgs.data?.map((org) => (
            <MenuItem key={org.id} disabled={org.id === currentOrgId}>
              <button
                type="button"
                className={`${item} data-disabled:font-semibold`}
                onClick={() => switchOrg.mutate({ org_id: org.id })}
              >
                <span className="truncate">
                  {org.name}
                  {org.is_personal && <span className="text-gray-700"> (personal)</span>}
                </span>
                <span className="shrink-0 text-xs text-gray-700">
                  {org.id === currentOrgId ? '✓ current' : org.role}
                </span>
              </button>
            </MenuItem>
          ))}
          {orgs.isError && <div className="px-3 py-2 text-sm text-red-800">{String(orgs.error.message)}</div>}
          <MenuSeparator className="my-1 h-px bg-gray-200" />
          <MenuItem>
            <button type="button" className={item} onClick={() => setCreating(true)}>
              New organization…
            </button>
          </MenuItem>
        </MenuItems>
      </Menu>
      {creating && <NewOrgDialog open onClose={() => setCreating(false)} />}
      {switchOrg.error ? <ErrorNotice error={switchOrg.error} className="absolute right-2 mt-2" /> : null}
    </div>
  );
}
