import { useState } from 'react';
import { Button } from '../../components/button';
import { TextField } from '../../components/field';
import { ErrorNotice, Notice } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { formatDateTime } from '../../lib/time';

/** The connection form of a chat app: its bot token, sent once and never shown again. */
export function TokenForm({
  app,
  hint,
  pending,
  error,
  onSubmit,
}: {
  app: string;
  hint: string;
  pending: boolean;
  error: unknown;
  onSubmit: (token: string) => void;
}) {
  const [token, setToken] = useState('');
  const tokenError = errorBody(error)?.fields?.bot_token;
  return (
    <form
      className="space-y-2"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(token.trim());
      }}
    >
      <p className="text-sm text-gray-900">{hint}</p>
      <TextField label={`${app} bot token`} value={token} onChange={setToken} error={tokenError} />
      <Button type="submit" variant="primary" disabled={pending || !token.trim()}>
        Connect {app}
      </Button>
      {error && !tokenError ? <ErrorNotice error={error} /> : null}
    </form>
  );
}

/** One Beckon channel's route to a chat of the app, typed as the app's id of it. */
export function RouteRow({
  app,
  channel,
  routed,
  routedName,
  pending,
  onSave,
}: {
  app: string;
  channel: { id: string; name: string };
  routed: string | undefined;
  routedName: string | undefined;
  pending: boolean;
  onSave: (target: string) => void;
}) {
  const [target, setTarget] = useState(routed ?? '');
  return (
    <li className="flex flex-wrap items-end justify-between gap-3 py-2">
      <span className="text-sm text-gray-900">
        #{channel.name}
        {routedName ? <span className="text-gray-700"> → {routedName}</span> : null}
      </span>
      <div className="flex items-end gap-2">
        <TextField label={`${app} chat of ${channel.name}`} value={target} onChange={setTarget} />
        <Button disabled={pending} onClick={() => onSave(target.trim())}>
          {target.trim() ? 'Save' : 'Not posted'}
        </Button>
      </div>
    </li>
  );
}

/**
 * A person's own link to their account of the app: whether it is linked, and a one-time code (and
 * Telegram's deep link) to link it.
 */
export function LinkMyAccount({
  app,
  linked,
  code,
  pending,
  error,
  onStart,
}: {
  app: string;
  linked: { linked: boolean; linked_at: string | null } | undefined;
  code: { code: string; url: string | null; instructions: string; expires_at: string } | undefined;
  pending: boolean;
  error: unknown;
  onStart: () => void;
}) {
  return (
    <section className="space-y-2" aria-label={`Your ${app} account`}>
      <h3 className="text-sm font-semibold text-gray-900">Your {app} account</h3>
      {linked?.linked && linked.linked_at ? (
        <Notice tone="success">
          Linked since {formatDateTime(linked.linked_at)}: you answer from {app} as yourself.
        </Notice>
      ) : (
        <p className="text-sm text-gray-900">
          Link your {app} account once to answer items from {app}.
        </p>
      )}
      <Button disabled={pending} onClick={onStart}>
        {linked?.linked ? `Link another ${app} account` : `Link my ${app} account`}
      </Button>
      {code ? (
        <div className="space-y-1 text-sm text-gray-900">
          <p>{code.instructions}</p>
          {code.url ? (
            <a
              className="font-medium text-indigo-800 underline"
              href={code.url}
              target="_blank"
              rel="noreferrer"
            >
              {code.url}
            </a>
          ) : (
            <code className="rounded bg-gray-100 px-1.5 py-0.5">{code.code}</code>
          )}
          <p className="text-gray-700">Good once, until {formatDateTime(code.expires_at)}.</p>
        </div>
      ) : null}
      {error ? <ErrorNotice error={error} /> : null}
    </section>
  );
}

/** A route as the list shows it: the app's id of the chat, and its name when the app gave one. */
export type ShownRoute = { target: string; name?: string | null };

/**
 * Every Beckon channel with its route to a chat of the app; saving an empty one removes it.
 * `errors`: of the last save and removal, shown under the list.
 */
export function RouteList({
  app,
  channels,
  routes,
  pending,
  errors,
  onSave,
}: {
  app: string;
  channels: { id: string; name: string }[];
  routes: Map<string, ShownRoute>;
  pending: boolean;
  errors: unknown[];
  onSave: (channelId: string, target: string) => void;
}) {
  return (
    <>
      <ul className="divide-y divide-gray-100" aria-label={`${app} routes`}>
        {channels.map((channel) => (
          <RouteRow
            key={channel.id}
            app={app}
            channel={channel}
            routed={routes.get(channel.id)?.target}
            routedName={routes.get(channel.id)?.name ?? undefined}
            pending={pending}
            onSave={(target) => onSave(channel.id, target)}
          />
        ))}
      </ul>
      {errors.map((error, index) => (error ? <ErrorNotice key={String(index)} error={error} /> : null))}
    </>
  );
}
