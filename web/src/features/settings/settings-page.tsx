import { can } from '@beckon/contracts/permissions';
import { useQuery } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense } from 'react';
import { Loading } from '../../components/notice';
import { Link } from '../../lib/router';
import { authTrpc } from '../../lib/trpc';
import { PasskeysPanel } from '../passkeys/passkeys-panel';
import { AvailabilityPanel } from './availability-panel';
import { BillingPanel } from './billing-panel';
import { MembersPanel } from './members-panel';
import { NotificationsPanel } from './notifications-panel';
import { RetentionPanel } from './retention-panel';

const SlackPanel = lazy(() => import('./slack-panel').then((m) => ({ default: m.SlackPanel })));
const TelegramPanel = lazy(() => import('./telegram-panel').then((m) => ({ default: m.TelegramPanel })));
const DiscordPanel = lazy(() => import('./discord-panel').then((m) => ({ default: m.DiscordPanel })));
const TeamsPanel = lazy(() => import('./teams-panel').then((m) => ({ default: m.TeamsPanel })));
const TwilioPanel = lazy(() => import('./twilio-panel').then((m) => ({ default: m.TwilioPanel })));
const PhonePanel = lazy(() => import('./phone-panel').then((m) => ({ default: m.PhonePanel })));
const WebhooksPanel = lazy(() => import('./webhooks-panel').then((m) => ({ default: m.WebhooksPanel })));

/** The settings sections, each shown to those who hold its permission (notifications, passkeys, availability: everyone). */
const SECTIONS = [
  { id: 'notifications', label: 'Notifications', permission: null },
  { id: 'passkeys', label: 'Passkeys', permission: null },
  { id: 'availability', label: 'Availability', permission: null },
  { id: 'members', label: 'Members', permission: 'users.invite' },
  { id: 'webhooks', label: 'Webhooks', permission: 'webhooks.manage' },
  { id: 'billing', label: 'Billing', permission: 'org.billing' },
  { id: 'slack', label: 'Slack', permission: 'org.manage' },
  { id: 'twilio', label: 'SMS and WhatsApp', permission: 'org.manage' },
  { id: 'phone', label: 'Phone', permission: null },
  { id: 'retention', label: 'Data retention', permission: 'org.manage' },
  // Everyone links their own account there; managing the bot needs org.manage (the panel asks).
  { id: 'telegram', label: 'Telegram', permission: null },
  { id: 'discord', label: 'Discord', permission: null },
  { id: 'teams', label: 'Microsoft Teams', permission: null },
] as const;
type SettingsSection = (typeof SECTIONS)[number]['id'];

const panels: Record<SettingsSection, (manage: boolean) => ReactNode> = {
  notifications: () => <NotificationsPanel />,
  passkeys: () => <PasskeysPanel />,
  availability: () => <AvailabilityPanel />,
  members: () => <MembersPanel />,
  webhooks: () => (
    <Suspense fallback={<Loading />}>
      <WebhooksPanel />
    </Suspense>
  ),
  billing: () => <BillingPanel />,
  slack: () => (
    <Suspense fallback={<Loading />}>
      <SlackPanel />
    </Suspense>
  ),
  twilio: () => (
    <Suspense fallback={<Loading />}>
      <TwilioPanel />
    </Suspense>
  ),
  phone: () => (
    <Suspense fallback={<Loading />}>
      <PhonePanel />
    </Suspense>
  ),
  retention: () => <RetentionPanel />,
  telegram: (manage) => (
    <Suspense fallback={<Loading />}>
      <TelegramPanel manage={manage} />
    </Suspense>
  ),
  discord: (manage) => (
    <Suspense fallback={<Loading />}>
      <DiscordPanel manage={manage} />
    </Suspense>
  ),
  teams: (manage) => (
    <Suspense fallback={<Loading />}>
      <TeamsPanel manage={manage} />
    </Suspense>
  ),
};

/** /settings/<section>: what the caller may see of the organization's settings, and their own. */
export function SettingsPage({ section }: { section: string }) {
  const me = useQuery(authTrpc.accounts.me.queryOptions());
  if (me.isPending) return <Loading />;
  const permissions = me.data?.permissions ?? [];
  const visible = SECTIONS.filter((s) => s.permission === null || can(permissions, s.permission));
  const current = visible.find((s) => s.id === section) ?? visible[0];
  return (
    <div className="mx-auto max-w-5xl space-y-4 p-3 sm:p-4">
      <h1 className="text-xl font-semibold text-gray-900">Settings</h1>
      <nav aria-label="Settings" className="flex flex-wrap gap-1 border-b border-gray-200 pb-2">
        {visible.map((s) => (
          <Link
            key={s.id}
            to={`/settings/${s.id}`}
            aria-current={s.id === current?.id ? 'page' : undefined}
            className={`rounded-md px-2.5 py-1.5 text-sm font-medium focus-ring ${
              s.id === current?.id ? 'bg-indigo-50 text-indigo-900' : 'text-gray-800 hover:bg-gray-100'
            }`}
          >
            {s.label}
          </Link>
        ))}
      </nav>
      {current ? panels[current.id](can(permissions, 'org.manage')) : null}
    </div>
  );
}
