import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from '../../components/button';
import { cardClass } from '../../components/field';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { errorStatus } from '../../lib/errors';
import { trpc } from '../../lib/trpc';
import { LinkMyAccount, RouteList, TokenForm } from './chat-app-parts';

/** Which Beckon channel posts its new items to which Discord chat (by the channel's id). */
function DiscordRoutes() {
  const queryClient = useQueryClient();
  const channels = useQuery(trpc.channels.list.queryOptions());
  const routes = useQuery(trpc.discord.routes.queryOptions());
  const refresh = {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.discord.routes.queryKey() }),
  };
  const put = useMutation(trpc.discord.putRoute.mutationOptions(refresh));
  const remove = useMutation(trpc.discord.deleteRoute.mutationOptions(refresh));
  if (channels.error ?? routes.error) return <ErrorNotice error={channels.error ?? routes.error} />;
  if (!channels.data || !routes.data) return <Loading />;
  const routed = new Map(
    routes.data.map((r) => [r.channel_id, { target: r.discord_channel_id, name: r.discord_channel_name }]),
  );
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-semibold text-gray-900">
        Post new items of each channel to a Discord channel
      </h3>
      <p className="text-sm text-gray-700">
        A text channel's id (Developer Mode, Copy Channel ID), in a server the bot was invited to.
      </p>
      <RouteList
        app="Discord"
        channels={channels.data}
        routes={routed}
        pending={put.isPending || remove.isPending}
        errors={[put.error, remove.error]}
        onSave={(channelId, target) =>
          target
            ? put.mutate({ channel_id: channelId, discord_channel_id: target })
            : remove.mutate({ channel_id: channelId })
        }
      />
    </div>
  );
}

/**
 * The organization's Discord bot (connected by its token, routed, disconnected: for those who
 * manage the organization), and every person's own link to their Discord account.
 */
export function DiscordPanel({ manage }: { manage: boolean }) {
  const queryClient = useQueryClient();
  const refresh = {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.discord.status.queryKey() }),
  };
  const status = useQuery({ ...trpc.discord.status.queryOptions(), enabled: manage });
  const connect = useMutation(trpc.discord.connect.mutationOptions(refresh));
  const disconnect = useMutation(trpc.discord.disconnect.mutationOptions(refresh));
  const linked = useQuery(trpc.discord.linkStatus.queryOptions());
  const link = useMutation(trpc.discord.link.mutationOptions());
  if (errorStatus(linked.error) === 503) return <Notice>Discord is not configured on this server.</Notice>;
  const connection = status.data?.connection;
  return (
    <section className={cardClass} aria-labelledby="discord-heading">
      <h2 id="discord-heading" className="text-lg font-semibold text-gray-900">
        Discord
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
                Connected to <strong>{connection.application_name}</strong>. Set its Interactions Endpoint URL
                to <code className="break-all">{connection.interactions_url}</code>.
              </p>
              <Button onClick={() => disconnect.mutate()} disabled={disconnect.isPending}>
                Disconnect
              </Button>
            </div>
            <DiscordRoutes />
          </>
        ) : (
          <TokenForm
            app="Discord"
            hint="Create an application in Discord's Developer Portal, invite its bot, and paste the bot's token."
            pending={connect.isPending}
            error={connect.error}
            onSubmit={(token) => connect.mutate({ bot_token: token })}
          />
        )
      ) : null}
      <LinkMyAccount
        app="Discord"
        linked={linked.data}
        code={link.data}
        pending={link.isPending}
        error={link.error}
        onStart={() => link.mutate()}
      />
    </section>
  );
}
