import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from '../../components/button';
import { cardClass } from '../../components/field';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { errorStatus } from '../../lib/errors';
import { trpc } from '../../lib/trpc';
import { LinkMyAccount, RouteList, TokenForm } from './chat-app-parts';

/** Which Beckon channel posts its new items to which Telegram chat (by the chat's id). */
function TelegramRoutes() {
  const queryClient = useQueryClient();
  const channels = useQuery(trpc.channels.list.queryOptions());
  const routes = useQuery(trpc.telegram.routes.queryOptions());
  const refresh = {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.telegram.routes.queryKey() }),
  };
  const put = useMutation(trpc.telegram.putRoute.mutationOptions(refresh));
  const remove = useMutation(trpc.telegram.deleteRoute.mutationOptions(refresh));
  if (channels.error ?? routes.error) return <ErrorNotice error={channels.error ?? routes.error} />;
  if (!channels.data || !routes.data) return <Loading />;
  const routed = new Map(routes.data.map((r) => [r.channel_id, { target: r.chat_id, name: r.chat_title }]));
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-semibold text-gray-900">Post new items of each channel to a chat</h3>
      <p className="text-sm text-gray-700">
        A group's id is negative; add the bot to the group first. A person who started the bot has their user
        id.
      </p>
      <RouteList
        app="Telegram"
        channels={channels.data}
        routes={routed}
        pending={put.isPending || remove.isPending}
        errors={[put.error, remove.error]}
        onSave={(channelId, target) =>
          target
            ? put.mutate({ channel_id: channelId, chat_id: target })
            : remove.mutate({ channel_id: channelId })
        }
      />
    </div>
  );
}

/**
 * The organization's Telegram bot (connected by its token, routed, disconnected: for those who
 * manage the organization), and every person's own link to their Telegram account.
 */
export function TelegramPanel({ manage }: { manage: boolean }) {
  const queryClient = useQueryClient();
  const refresh = {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.telegram.status.queryKey() }),
  };
  const status = useQuery({ ...trpc.telegram.status.queryOptions(), enabled: manage });
  const connect = useMutation(trpc.telegram.connect.mutationOptions(refresh));
  const disconnect = useMutation(trpc.telegram.disconnect.mutationOptions(refresh));
  const linked = useQuery(trpc.telegram.linkStatus.queryOptions());
  const link = useMutation(trpc.telegram.link.mutationOptions());
  if (errorStatus(linked.error) === 503) return <Notice>Telegram is not configured on this server.</Notice>;
  const connection = status.data?.connection;
  return (
    <section className={cardClass} aria-labelledby="telegram-heading">
      <h2 id="telegram-heading" className="text-lg font-semibold text-gray-900">
        Telegram
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
                Connected to <strong>@{connection.bot_username}</strong>.
              </p>
              <Button onClick={() => disconnect.mutate()} disabled={disconnect.isPending}>
                Disconnect
              </Button>
            </div>
            <TelegramRoutes />
          </>
        ) : (
          <TokenForm
            app="Telegram"
            hint="Create a bot with @BotFather in Telegram and paste its token: Beckon sets its webhook."
            pending={connect.isPending}
            error={connect.error}
            onSubmit={(token) => connect.mutate({ bot_token: token })}
          />
        )
      ) : null}
      <LinkMyAccount
        app="Telegram"
        linked={linked.data}
        code={link.data}
        pending={link.isPending}
        error={link.error}
        onStart={() => link.mutate()}
      />
    </section>
  );
}
