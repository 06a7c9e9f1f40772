import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../../components/button';
import { cardClass, TextField } from '../../components/field';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { errorBody, errorStatus } from '../../lib/errors';
import { trpc } from '../../lib/trpc';
import { LinkMyAccount, RouteList } from './chat-app-parts';

/** The connection form of a Teams bot: its Microsoft App ID, a client secret, and a tenant for a single-tenant bot. */
function ConnectForm({
  pending,
  error,
  onSubmit,
}: {
  pending: boolean;
  error: unknown;
  onSubmit: (input: { app_id: string; app_password: string; tenant_id?: string }) => void;
}) {
  const [appId, setAppId] = useState('');
  const [secret, setSecret] = useState('');
  const [tenant, setTenant] = useState('');
  const fields = errorBody(error)?.fields;
  return (
    <form
      className="space-y-2"
      onSubmit={(event) => {
        event.preventDefault();
        const tenantId = tenant.trim();
        onSubmit({
          app_id: appId.trim(),
          app_password: secret,
          ...(tenantId ? { tenant_id: tenantId } : {}),
        });
      }}
    >
      <p className="text-sm text-gray-900">
        Register an Azure Bot with the Microsoft Teams channel, then paste its Microsoft App ID and a client
        secret.
      </p>
      <TextField label="Microsoft App ID" value={appId} onChange={setAppId} error={fields?.app_id} />
      <TextField label="Client secret" value={secret} onChange={setSecret} error={fields?.app_password} />
      <TextField
        label="Tenant ID (single-tenant bots only)"
        value={tenant}
        onChange={setTenant}
        error={fields?.tenant_id}
      />
      <Button type="submit" variant="primary" disabled={pending || !appId.trim() || !secret}>
        Connect Microsoft Teams
      </Button>
      {error && !fields ? <ErrorNotice error={error} /> : null}
    </form>
  );
}

/** Which Beckon channel posts its new items to which Teams conversation (one the bot is in). */
function TeamsRoutes() {
  const queryClient = useQueryClient();
  const channels = useQuery(trpc.channels.list.queryOptions());
  const routes = useQuery(trpc.teams.routes.queryOptions());
  const conversations = useQuery(trpc.teams.conversations.queryOptions());
  const refresh = {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.teams.routes.queryKey() }),
  };
  const put = useMutation(trpc.teams.putRoute.mutationOptions(refresh));
  const remove = useMutation(trpc.teams.deleteRoute.mutationOptions(refresh));
  const error = channels.error ?? routes.error ?? conversations.error;
  if (error) return <ErrorNotice error={error} />;
  if (!channels.data || !routes.data || !conversations.data) return <Loading />;
  const routed = new Map(
    routes.data.map((r) => [r.channel_id, { target: r.conversation_id, name: r.conversation_name }]),
  );
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-semibold text-gray-900">
        Post new items of each channel to a Teams conversation
      </h3>
      {conversations.data.length === 0 ? (
        <p className="text-sm text-gray-700">
          Add the bot to a team or a chat in Teams: its conversations are listed here once Teams tells Beckon.
        </p>
      ) : (
        <ul className="text-sm text-gray-700" aria-label="Teams conversations">
          {conversations.data.map((c) => (
            <li key={c.conversation_id}>
              {c.name}: <code className="break-all">{c.conversation_id}</code>
            </li>
          ))}
        </ul>
      )}
      <RouteList
        app="Teams"
        channels={channels.data}
        routes={routed}
        pending={put.isPending || remove.isPending}
        errors={[put.error, remove.error]}
        onSave={(channelId, target) =>
          target
            ? put.mutate({ channel_id: channelId, conversation_id: target })
            : remove.mutate({ channel_id: channelId })
        }
      />
    </div>
  );
}

/**
 * The organization's Microsoft Teams bot (connected by its app id and secret, routed,
 * disconnected: for those who manage the organization), and every person's own link to their
 * Teams account.
 */
export function TeamsPanel({ manage }: { manage: boolean }) {
  const queryClient = useQueryClient();
  const refresh = {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.teams.status.queryKey() }),
  };
  const status = useQuery({ ...trpc.teams.status.queryOptions(), enabled: manage });
  const connect = useMutation(trpc.teams.connect.mutationOptions(refresh));
  const disconnect = useMutation(trpc.teams.disconnect.mutationOptions(refresh));
  const linked = useQuery(trpc.teams.linkStatus.queryOptions());
  const link = useMutation(trpc.teams.link.mutationOptions());
  if (errorStatus(linked.error) === 503)
    return <Notice>Microsoft Teams is not configured on this server.</Notice>;
  const connection = status.data?.connection;
  return (
    <section className={cardClass} aria-labelledby="teams-heading">
      <h2 id="teams-heading" className="text-lg font-semibold text-gray-900">
        Microsoft Teams
      </h2>
      {manage ? (
        status.isError ? (
          <ErrorNotice error={status.error} />
        ) : status.isPending ? (
          <Loading />
        ) : connection ? (
          <>
            <div className="flex flex-wrap items-center justify-between gap-2">
              <p className="text-sm text-gray-900">
                Connected to the bot <strong>{connection.app_id}</strong>. Set its messaging endpoint to{' '}
                <code className="break-all">{connection.messaging_endpoint}</code>.
              </p>
              <Button onClick={() => disconnect.mutate()} disabled={disconnect.isPending}>
                Disconnect
              </Button>
            </div>
            <TeamsRoutes />
          </>
        ) : (
          <ConnectForm
            pending={connect.isPending}
            error={connect.error}
            onSubmit={(input) => connect.mutate(input)}
          />
        )
      ) : null}
      <LinkMyAccount
        app="Teams"
        linked={linked.data}
        code={link.data}
        pending={link.isPending}
        error={link.error}
        onStart={() => link.mutate()}
      />
    </section>
  );
}
