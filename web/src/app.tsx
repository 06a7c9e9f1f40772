import { lazy, type ReactNode, Suspense, useEffect } from 'react';
import { Loading } from './components/notice';
import { CallbackPage } from './features/auth/callback-page';
import { InvitePage } from './features/auth/invite-page';
import { LoginPage } from './features/auth/login-page';
import { VerifyPage } from './features/auth/verify-page';
import { InboxPage } from './features/inbox/inbox-page';
import { Shell } from './features/shell/shell';
import { matchPath, navigate, useLocation } from './lib/router';
import { rememberNext, useToken } from './lib/session';

// The item page (Markdown, forms) and the agents page load on first use: the inbox comes first.
const ItemPage = lazy(() => import('./features/items/item-page').then((m) => ({ default: m.ItemPage })));
const AgentsPage = lazy(() =>
  import('./features/agents/agents-page').then((m) => ({ default: m.AgentsPage })),
);
const SlackLinkPage = lazy(() =>
  import('./features/settings/slack-link-page').then((m) => ({ default: m.SlackLinkPage })),
);
const SchedulesPage = lazy(() =>
  import('./features/schedules/schedules-page').then((m) => ({ default: m.SchedulesPage })),
);
const SettingsPage = lazy(() =>
  import('./features/settings/settings-page').then((m) => ({ default: m.SettingsPage })),
);

const Lazy = ({ children }: { children: ReactNode }) => (
  <Suspense fallback={<Loading />}>{children}</Suspense>
);

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function NotFound() {
  return (
    <div className="mx-auto max-w-3xl p-6">
      <h1 className="text-xl font-semibold text-gray-900">Page not found</h1>
    </div>
  );
}

/**
 * Routes: /login, /verify?token=, /auth/callback#token=, /invite/:code, /, /items/:id, /agents,
 * /schedules, /settings/:section (notifications, passkeys, members, webhooks, billing, slack), /slack/link.
 */
export function App() {
  const token = useToken();
  const location = useLocation();
  const { pathname } = location;

  if (pathname === '/verify') return <VerifyPage token={location.searchParams.get('token') ?? ''} />;
  if (pathname === '/auth/callback') return <CallbackPage />;
  const invite = matchPath('/invite/:code', pathname);
  if (invite?.code) return <InvitePage code={invite.code} />;

  if (!token) {
    if (pathname !== '/login') {
      rememberNext(pathname + location.search);
      return <Redirect to="/login" />;
    }
    return <LoginPage />;
  }
  if (pathname === '/login') return <Redirect to="/" />;
  if (pathname === '/') {
    return (
      <Shell page="inbox">
        <InboxPage />
      </Shell>
    );
  }
  const item = matchPath('/items/:id', pathname);
  if (item?.id) {
    return (
      <Shell page="item">
        <Lazy>
          <ItemPage key={item.id} id={item.id} />
        </Lazy>
      </Shell>
    );
  }
  if (pathname === '/agents') {
    return (
      <Shell page="agents">
        <Lazy>
          <AgentsPage />
        </Lazy>
      </Shell>
    );
  }
  if (pathname === '/schedules') {
    return (
      <Shell page="schedules">
        <Lazy>
          <SchedulesPage />
        </Lazy>
      </Shell>
    );
  }
  if (pathname === '/slack/link') {
    return (
      <Shell page="settings">
        <Lazy>
          <SlackLinkPage
            outcome={{
              linked: location.searchParams.get('linked') === '1',
              error: location.searchParams.get('error'),
            }}
          />
        </Lazy>
      </Shell>
    );
  }
  const settings =
    pathname === '/settings' ? { section: 'notifications' } : matchPath('/settings/:section', pathname);
  if (settings?.section) {
    return (
      <Shell page="settings">
        <Lazy>
          <SettingsPage section={settings.section} />
        </Lazy>
      </Shell>
    );
  }
  return (
    <Shell page="inbox">
      <NotFound />
    </Shell>
  );
}
