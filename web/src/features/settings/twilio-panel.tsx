import type { PutTwilioConnectionInput } from '@beckon/contracts/twilio/twilio.contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/button';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { CopyButton } from '../../components/copy-button';
import { cardClass, TextField } from '../../components/field';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { errorBody, errorStatus } from '../../lib/errors';
import { formatDateTime } from '../../lib/time';
import { trpc } from '../../lib/trpc';

const EMPTY = { account_sid: '', auth_token: '', sms_from: '', whatsapp_from: '' };

/** The account SID, auth token and sender numbers, checked with Twilio when saved. */
function ConnectForm({ onDone }: { onDone?: () => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState(EMPTY);
  const save = useMutation(
    trpc.twilio.connect.mutationOptions({
      onSuccess: () => {
        setForm(EMPTY);
        onDone?.();
        return queryClient.invalidateQueries({ queryKey: trpc.twilio.status.queryKey() });
      },
    }),
  );
  const fields = (errorBody(save.error)?.fields ?? {}) as Record<string, string>;
  const set = (key: keyof typeof EMPTY) => (value: string) => setForm({ ...form, [key]: value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const input: PutTwilioConnectionInput = {
      account_sid: form.account_sid.trim(),
      auth_token: form.auth_token.trim(),
      sms_from: form.sms_from.trim() || null,
      whatsapp_from: form.whatsapp_from.trim() || null,
    };
    save.mutate(input);
  };
  return (
    <form className="space-y-3" onSubmit={submit} aria-label="Twilio account">
      <TextField
        label="Account SID"
        value={form.account_sid}
        onChange={set('account_sid')}
        error={fields.account_sid}
        placeholder="AC…"
      />
      <TextField
        label="Auth token"
        value={form.auth_token}
        onChange={set('auth_token')}
        error={fields.auth_token}
      />
      <TextField
        label="SMS number"
        value={form.sms_from}
        onChange={set('sms_from')}
        error={fields.sms_from}
        placeholder="+15551234567"
      />
      <TextField
        label="WhatsApp sender"
        value={form.whatsapp_from}
        onChange={set('whatsapp_from')}
        error={fields.whatsapp_from}
        placeholder="+15551234567"
      />
      <Button type="submit" variant="primary" disabled={save.isPending}>
        Connect Twilio
      </Button>
      {save.error && Object.keys(fields).length === 0 ? <ErrorNotice error={save.error} /> : null}
    </form>
  );
}

/** The organization's Twilio account (org.manage): connect, the webhook URL to set, disconnect. */
export function TwilioPanel() {
  const queryClient = useQueryClient();
  const status = useQuery(trpc.twilio.status.queryOptions());
  const [disconnecting, setDisconnecting] = useState(false);
  const disconnect = useMutation(
    trpc.twilio.disconnect.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.twilio.status.queryKey() }),
    }),
  );
  const connection = status.data?.connection;
  return (
    <section className={cardClass} aria-labelledby="twilio-heading">
      <h2 id="twilio-heading" className="text-lg font-semibold text-gray-900">
        SMS and WhatsApp
      </h2>
      {errorStatus(status.error) === 503 ? (
        <Notice>SMS and WhatsApp are not configured on this server.</Notice>
      ) : status.isError ? (
        <ErrorNotice error={status.error} />
      ) : status.isPending ? (
        <Loading />
      ) : connection ? (
        <div className="space-y-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm text-gray-900">
              Twilio account <strong>{connection.account_sid}</strong>, connected{' '}
              {formatDateTime(connection.connected_at)}: SMS from {connection.sms_from ?? 'no number'},
              WhatsApp from {connection.whatsapp_from ?? 'no sender'}.
            </p>
            <Button onClick={() => setDisconnecting(true)}>Disconnect</Button>
          </div>
          <div className="space-y-1">
            <p className="text-sm text-gray-900">
              In Twilio, set each number's incoming-message webhook (HTTP POST) to:
            </p>
            <div className="flex items-center gap-2">
              <code className="break-all rounded bg-gray-100 px-2 py-1 text-sm">
                {connection.inbound_url}
              </code>
              <CopyButton text={connection.inbound_url} />
            </div>
          </div>
        </div>
      ) : (
        <div className="space-y-2">
          <p className="text-sm text-gray-900">
            Text items to people's verified phones, by SMS or WhatsApp, and take their replies as answers.
          </p>
          <ConnectForm />
        </div>
      )}
      <ConfirmDialog
        open={disconnecting}
        title="Disconnect Twilio?"
        confirmLabel="Disconnect"
        onConfirm={() => {
          setDisconnecting(false);
          disconnect.mutate();
        }}
        onClose={() => setDisconnecting(false)}
      >
        Nothing more is texted; the people's phone numbers are forgotten.
      </ConfirmDialog>
      {disconnect.error ? <ErrorNotice error={disconnect.error} /> : null}
    </section>
  );
}
