import { can } from '@beckon/contracts/permissions';
import { Menu, MenuButton, MenuItem, MenuItems } from '@headlessui/react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type ReactNode, useEffect } from 'react';
import { buttonClass } from '../../components/button';
import { ErrorNotice } from '../../components/notice';
import { Link, navigate, useLocation } from '../../lib/router';
import { setToken, useToken } from '../../lib/session';
import { authTrpc, queryClient, trpc } from '../../lib/trpc';
import { type LiveStatus, useLiveUpdates } from '../live/use-live-updates';
import { OrgSwitcher } from './org-switcher';

const liveLabels: Record<LiveStatus, string> = { connecting: 'Connecting', live: 'Live', offline: 'Offline' };
const liveDot: Record<LiveStatus, string> = {
  connecting: 'bg-amber-500',
  live: 'bg-green-600',
  offline: 'bg-gray-500',
};

function LiveIndicator({ status }: { status: LiveStatus }) {
  return (
    <span
      role="status"
      className="inline-flex items-center gap-1.5 text-xs text-gray-800"
      title={status === 'live' ? 'Updates arrive as they happen' : 'Reconnecting to live updates'}
    >
      <span aria-hidden="true" className={`size-2 rounded-full ${liveDot[status]}`} />
      <span className="sr-only sm:not-sr-only">{liveLabels[status]}</span>
    </span>
  );
}

/** The tab title carries the number of open items: "(3) Inbox · Beckon". */
function useTitleBadge(open: number | undefined, page: string) {
  useEffect(() => {
    document.title = `${open ? `(${open}) ` : ''}${page} · Beckon`;
  }, [open, page]);
}

function NavLink({ to, active, children }: { to: string; active: boolean; children: ReactNode }) {
  return (
    <Link
      to={to}
      aria-current={active ? 'page' : undefined}
      className={`rounded-md px-2.5 py-1.5 text-sm font-medium focus-ring ${
        active ? 'bg-indigo-50 text-indigo-900' : 'text-gray-800 hover:bg-gray-100'
      }`}
    >
      {children}
    </Link>
  );
}

const TITLES = {
  inbox: 'Inbox',
  item: 'Item',
  agents: 'Agents',
  schedules: 'On-call',
  settings: 'Settings',
} as const;

export function Shell({ page, children }: { page: keyof typeof TITLES; children: ReactNode }) {
  const token = useToken();
  const live = useLiveUpdates(token);
  const me = useQuery(authTrpc.accounts.me.queryOptions());
  const stats = useQuery(trpc.stats.get.queryOptions());
  const pathname = useLocation().pathname;
  useTitleBadge(stats.data?.open, TITLES[page]);
  const logout = useMutation(
    authTrpc.accounts.logout.mutationOptions({
      onSettled: () => {
        queryClient.clear();
        setToken(null);
        navigate('/login', { replace: true });
      },
    }),
  );
  const canManageAgents = me.data && can(me.data.permissions, 'agents.manage');

  return (
    <div className="min-h-screen bg-gray-50">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2"
      >
        Skip to content
      </a>
      <header className="border-b border-gray-200 bg-white">
        <div className="mx-auto flex max-w-5xl flex-wrap items-center gap-x-3 gap-y-2 px-3 py-2 sm:px-4">
          <Link to="/" className="rounded text-base font-bold text-indigo-800 focus-ring">
            Beckon
          </Link>
          <nav aria-label="Main" className="flex items-center gap-1">
            <NavLink to="/" active={pathname === '/' || pathname.startsWith('/items/')}>
              Inbox
              {stats.data && stats.data.open > 0 && (
                <span className="ml-1.5 rounded-full bg-indigo-700 px-1.5 py-0.5 text-xs text-white">
                  {stats.data.open}
                  <span className="sr-only"> open</span>
                </span>
              )}
            </NavLink>
            {canManageAgents && (
              <NavLink to="/agents" active={pathname === '/agents'}>
                Agents
              </NavLink>
            )}
            <NavLink to="/schedules" active={pathname === '/schedules'}>
              On-call
            </NavLink>
            <NavLink to="/settings" active={pathname.startsWith('/settings')}>
              Settings
            </NavLink>
          </nav>
          <div className="ml-auto flex min-w-0 items-center gap-2">
            <LiveIndicator status={live} />
            {me.data && <OrgSwitcher currentOrgId={me.data.org.id} currentName={me.data.org.name} />}
            <Menu>
              <MenuButton className={buttonClass('ghost', 'sm')} aria-label="Account">
                <span
                  aria-hidden="true"
                  className="flex size-6 items-center justify-center rounded-full bg-gray-200 text-xs font-semibold text-gray-900"
                >
                  {(me.data?.user.email ?? '?').charAt(0).toUpperCase()}
                </span>
              </MenuButton>
              <MenuItems
                anchor="bottom end"
                className="z-40 mt-1 w-64 rounded-md bg-white p-1 shadow-lg ring-1 ring-gray-200 focus:outline-none [--anchor-gap:4px]"
              >
                <div className="truncate px-3 py-2 text-sm text-gray-800">{me.data?.user.email}</div>
                <MenuItem>
                  <button
                    type="button"
                    className="block w-full rounded px-3 py-2 text-left text-sm text-gray-900 data-focus:bg-indigo-50"
                    onClick={() => logout.mutate()}
                  >
                    Sign out
                  </button>
                </MenuItem>
              </MenuItems>
            </Menu>
          </div>
        </div>
      </header>
      <main id="main" tabIndex={-1} className="focus:outline-none">
        {me.isError ? <ErrorNotice error={me.error} className="m-4" /> : null}
        {children}
      </main>
    </div>
  );
}
