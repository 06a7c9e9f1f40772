import { Menu, MenuButton, MenuItem, MenuItems, MenuSeparator } from '@headlessui/react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { buttonClass } from '../../components/button';
import { ErrorNotice } from '../../components/notice';
import { authTrpc } from '../../lib/trpc';
import { startSession } from '../auth/sign-in';

const item =
  'flex w-full items-center justify-between gap-3 rounded px-3 py-2 text-left text-sm text-gray-900 data-focus:bg-indigo-50';

/** GET /auth/orgs, and POST /auth/switch-org: the new session replaces the current token. */
export function OrgSwitcher({ currentOrgId, currentName }: { currentOrgId: string; currentName: string }) {
  const orgs = useQuery(authTrpc.accounts.listOrgs.queryOptions());
  const switchOrg = useMutation(
    authTrpc.accounts.switchOrg.mutationOptions({ onSuccess: (grant) => startSession(grant.token, '/') }),
  );
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
        </MenuItems>
      </Menu>
      {switchOrg.error ? <ErrorNotice error={switchOrg.error} className="absolute right-2 mt-2" /> : null}
    </div>
  );
}
