import { Select } from '@headlessui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../../components/button';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { cardClass } from '../../components/field';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { errorStatus } from '../../lib/errors';
import { useLocation } from '../../lib/router';
import { formatDateTime } from '../../lib/time';
import { trpc } from '../../lib/trpc';

const INSTALL_ERRORS: Record<string, string> = {
  invalid_state: 'The connection took too long or did not start here. Try again.',
  other_browser:
    'The connection was started in another browser: start it here, in the browser you approve it from.',
  forbidden: 'You no longer manage this organization.',
  access_denied: 'The installation was canceled in Slack.',
  invalid_code: 'Slack did not accept the installation (it may have been used already). Try again.',
  plan_limit: "The organization's plan does not include Slack.",
};

/** Which Beckon channel posts its new items to which Slack channel. */
function Routes() {
  const queryClient = useQueryClient();
  const channels = useQuery(trpc.channels.list.queryOptions());
  const slackChannels = useQuery(trpc.slack.channels.queryOptions());
  const routes = useQuery(trpc.slack.routes.queryOptions());
  const refresh = {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.slack.routes.queryKey() }),
  };
  const put = useMutation(trpc.slack.putRoute.mutationOptions(refresh));
  const remove = useMutation(trpc.slack.deleteRoute.mutationOptions(refresh));
  const failed = channels.error ?? slackChannels.error ?? routes.error;
  if (failed) return <ErrorNotice error={failed} />;
  if (!channels.data || !slackChannels.data || !routes.data) return <Loading />;
  if (channels.data.length === 0)
    return <Notice>Create a channel first: items are posted by channel.</Notice>;
  const routed = new Map(routes.data.map((r) => [r.channel_id, r.slack_channel_id]));
  const change = (channelId: string, slackChannelId: string) =>
    slackChannelId
      ? put.mutate({ channel_id: channelId, slack_channel_id: slackChannelId })
      : remove.mutate({ channel_id: channelId });
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-semibold text-gray-900">Post new items of each channel to</h3>
      <ul className="divide-y divide-gray-100" aria-label="Slack routes">
        {channels.data.map((channel) => (
          <li key={channel.id} className="flex items-center justify-between gap-3 py-2">
            <span className="text-sm text-gray-900">#{channel.name}</span>
            <Select
              aria-label={`Slack channel of ${channel.name}`}
              value={routed.get(channel.id) ?? ''}
              disabled={put.isPending || remove.isPending}
              onChange={(event) => change(channel.id, event.target.value)}
              className="rounded-md border border-gray-400 bg-white px-2 py-1.5 text-sm text-gray-900 focus-ring"
            >
              <option value="">Not posted to Slack</option>
              {slackChannels.data.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.kind === 'person' ? `${c.name} (direct message)` : `#${c.name}`}
                </option>
              ))}
            </Select>
          </li>
        ))}
      </ul>
      {put.error ? <ErrorNotice error={put.error} /> : null}
      {remove.error ? <ErrorNotice error={remove.error} /> : null}
    </div>
  );
}

/** The organization's Slack workspace: connect (Slack's install page), route channels, disconnect. */
export function SlackPanel() {
  const queryClient = useQueryClient();
  const params = useLocation().searchParams;
  const status = useQuery(trpc.slack.status.queryOptions());
  const install = useMutation(
    trpc.slack.install.mutationOptions({ onSuccess: ({ url }) => window.location.assign(url) }),
  );
  const [disconnecting, setDisconnecting] = useState(false);
  const disconnect = useMutation(
    trpc.slack.disconnect.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.slack.status.queryKey() }),
    }),
  );
  const installError = params.get('error');
  const connection = status.data?.connection;
  return (
    <section className={cardClass} aria-labelledby="slack-heading">
      <h2 id="slack-heading" className="text-lg font-semibold text-gray-900">
        Slack
      </h2>
      {params.get('connected') && connection && <Notice tone="success">Slack is connected.</Notice>}
      {installError && (
        <ErrorNotice error={new Error(INSTALL_ERRORS[installError] ?? `Slack said: ${installError}`)} />
      )}
      {errorStatus(status.error) === 503 ? (
        <Notice>Slack is not configured on this server.</Notice>
      ) : status.isError ? (
        <ErrorNotice error={status.error} />
      ) : status.isPending ? (
        <Loading />
      ) : connection ? (
        <>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm text-gray-900">
              Connected to <strong>{connection.team_name}</strong> since{' '}
              {formatDateTime(connection.connected_at)}. People answer from Slack as the Beckon member they
              link to, once.
            </p>
            <Button onClick={() => setDisconnecting(true)}>Disconnect</Button>
          </div>
          <Routes />
        </>
      ) : (
        <div className="space-y-2">
          <p className="text-sm text-gray-900">
            Post items to Slack channels, with their answer buttons, and see each message updated once
            decided.
          </p>
          <Button variant="primary" disabled={install.isPending} onClick={() => install.mutate()}>
            Connect Slack
          </Button>
          {install.error ? <ErrorNotice error={install.error} /> : null}
        </div>
      )}
      <ConfirmDialog
        open={disconnecting}
        title="Disconnect Slack?"
        confirmLabel="Disconnect"
        onConfirm={() => {
          setDisconnecting(false);
          disconnect.mutate();
        }}
        onClose={() => setDisconnecting(false)}
      >
        Nothing more is posted; the routes and the people's Slack links are forgotten.
      </ConfirmDialog>
      {disconnect.error ? <ErrorNotice error={disconnect.error} /> : null}
    </section>
  );
}
