import { Checkbox, Field, Fieldset, Label, Legend, Select } from '@headlessui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Button } from '../../components/button';
import { cardClass, controlClass, labelClass, TextField } from '../../components/field';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { type AppOutputs, trpc } from '../../lib/trpc';
import { BrowserPush } from './browser-push';
import { EmailSettings } from './email-settings';

type Preferences = AppOutputs['push']['preferences'];
const LEVELS = ['info', 'success', 'warning', 'error'] as const;
const APPS = [
  ['slack', 'Slack'],
  ['telegram', 'Telegram'],
  ['discord', 'Discord'],
  ['teams', 'Microsoft Teams'],
  ['sms', 'SMS'],
  ['whatsapp', 'WhatsApp'],
] as const satisfies ReadonlyArray<readonly [Preferences['muted_apps'][number], string]>;

const box =
  'size-4 rounded border border-gray-500 bg-white focus-ring data-checked:border-indigo-700 data-checked:bg-indigo-700';

function CheckboxField({
  label,
  checked,
  onChange,
}: {
  label: string;
  checked: boolean;
  onChange: (on: boolean) => void;
}) {
  return (
    <Field className="flex items-center gap-2">
      <Checkbox checked={checked} onChange={onChange} className={box} />
      <Label className="text-sm text-gray-900">{label}</Label>
    </Field>
  );
}

function PreferencesForm({ saved }: { saved: Preferences }) {
  const queryClient = useQueryClient();
  const channels = useQuery(trpc.channels.list.queryOptions());
  const [draft, setDraft] = useState(saved);
  useEffect(() => setDraft(saved), [saved]);
  const update = useMutation(
    trpc.push.updatePreferences.mutationOptions({
      onSuccess: (next) => queryClient.setQueryData(trpc.push.preferences.queryKey(), next),
    }),
  );
  const fields = errorBody(update.error)?.fields ?? {};
  const set = <K extends keyof Preferences>(key: K, value: Preferences[K]) =>
    setDraft({ ...draft, [key]: value });
  const allowed = draft.quiet_hours_allow_levels.split(',').filter(Boolean);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate(draft);
  };
  return (
    <form noValidate onSubmit={submit} aria-label="Notification preferences" className="space-y-4">
      <Field>
        <Label className={labelClass}>Notify me of items at or above</Label>
        <Select
          value={draft.min_level}
          onChange={(e) => set('min_level', e.target.value as Preferences['min_level'])}
          className={controlClass}
        >
          {LEVELS.map((level) => (
            <option key={level} value={level}>
              {level}
            </option>
          ))}
        </Select>
      </Field>
      <Fieldset className="space-y-2">
        <Legend className={labelClass}>Quiet hours</Legend>
        <CheckboxField
          label="Nothing during quiet hours"
          checked={draft.quiet_hours_enabled}
          onChange={(on) => set('quiet_hours_enabled', on)}
        />
        <div className="grid gap-3 sm:grid-cols-3">
          <TextField
            label="From"
            type="time"
            value={draft.quiet_hours_start}
            onChange={(v) => set('quiet_hours_start', v)}
            error={fields.quiet_hours_start}
          />
          <TextField
            label="Until"
            type="time"
            value={draft.quiet_hours_end}
            onChange={(v) => set('quiet_hours_end', v)}
            error={fields.quiet_hours_end}
          />
          <TextField
            label="Time zone"
            value={draft.timezone}
            onChange={(v) => set('timezone', v)}
            error={fields.timezone}
          />
        </div>
        <p className="text-sm text-gray-800">Still sent in quiet hours:</p>
        <div className="flex flex-wrap gap-4">
          {LEVELS.map((level) => (
            <CheckboxField
              key={level}
              label={level}
              checked={allowed.includes(level)}
              onChange={(on) =>
                set(
                  'quiet_hours_allow_levels',
                  (on ? [...allowed, level] : allowed.filter((l) => l !== level)).join(','),
                )
              }
            />
          ))}
        </div>
      </Fieldset>
      {channels.data && channels.data.length > 0 && (
        <Fieldset className="space-y-2">
          <Legend className={labelClass}>Muted channels</Legend>
          <div className="flex flex-wrap gap-4">
            {channels.data.map((channel) => (
              <CheckboxField
                key={channel.id}
                label={channel.name}
                checked={draft.muted_channels.includes(channel.id)}
                onChange={(on) =>
                  set(
                    'muted_channels',
                    on
                      ? [...draft.muted_channels, channel.id]
                      : draft.muted_channels.filter((id) => id !== channel.id),
                  )
                }
              />
            ))}
          </div>
        </Fieldset>
      )}
      <Fieldset className="space-y-2">
        <Legend className={labelClass}>Muted apps</Legend>
        <p className="text-sm text-gray-800">
          No direct messages or texts from these, even when your account there is linked:
        </p>
        <div className="flex flex-wrap gap-4">
          {APPS.map(([app, name]) => (
            <CheckboxField
              key={app}
              label={name}
              checked={draft.muted_apps.includes(app)}
              onChange={(on) =>
                set('muted_apps', on ? [...draft.muted_apps, app] : draft.muted_apps.filter((a) => a !== app))
              }
            />
          ))}
        </div>
      </Fieldset>
      <div className="flex items-center gap-3">
        <Button type="submit" variant="primary" disabled={update.isPending}>
          Save preferences
        </Button>
        {update.isSuccess && !update.isPending && (
          <span role="status" className="text-sm text-green-800">
            Saved
          </span>
        )}
      </div>
      {update.error && !Object.keys(fields).length ? <ErrorNotice error={update.error} /> : null}
    </form>
  );
}

/**
 * A person's notification preferences: what reaches their devices, mailbox, direct messages and
 * phone, and when.
 */
export function NotificationsPanel() {
  const preferences = useQuery(trpc.push.preferences.queryOptions());
  return (
    <section className={cardClass} aria-labelledby="notifications-heading">
      <h2 id="notifications-heading" className="text-lg font-semibold text-gray-900">
        Notifications
      </h2>
      <Notice>
        These apply to pushes, mail, direct messages in chat apps and texts; the inbox always shows
        everything.
      </Notice>
      <BrowserPush />
      <EmailSettings />
      {preferences.isPending ? (
        <Loading />
      ) : preferences.isError ? (
        <ErrorNotice error={preferences.error} />
      ) : (
        <PreferencesForm saved={preferences.data} />
      )}
    </section>
  );
}
