import { Checkbox, Field, Fieldset, Label, Legend, Select } from '@headlessui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { controlClass, labelClass } from '../../components/field';
import { ErrorNotice, Loading } from '../../components/notice';
import { type AppOutputs, trpc } from '../../lib/trpc';

type EmailSettingsView = AppOutputs['email']['settings'];
const LEVELS = ['success', 'warning', 'error'] as const;

const box =
  'size-4 rounded border border-gray-500 bg-white focus-ring data-checked:border-indigo-700 data-checked:bg-indigo-700';

/**
 * This person's mail from the current organization: on or off, and a digest for the items below
 * a level. Each change is saved at once; quiet hours, the minimum level and mutes below apply too.
 */
export function EmailSettings() {
  const queryClient = useQueryClient();
  const settings = useQuery(trpc.email.settings.queryOptions());
  const update = useMutation(
    trpc.email.updateSettings.mutationOptions({
      onSuccess: (next) => queryClient.setQueryData(trpc.email.settings.queryKey(), next),
    }),
  );
  if (settings.isPending) return <Loading />;
  if (settings.isError) return <ErrorNotice error={settings.error} />;
  const saved = settings.data;
  const change = (patch: Partial<Omit<EmailSettingsView, 'available'>>) => update.mutate(patch);
  return (
    <Fieldset className="space-y-2" aria-label="Email">
      <Legend className={labelClass}>Email</Legend>
      {!saved.available && (
        <p className="text-sm text-gray-800">This server does not send mail (no SMTP server set).</p>
      )}
      <Field className="flex items-center gap-2">
        <Checkbox
          checked={saved.enabled}
          disabled={update.isPending}
          onChange={(enabled) => change({ enabled })}
          className={box}
        />
        <Label className="text-sm text-gray-900">
          Mail me items of this organization (answer simple ones from the mail)
        </Label>
      </Field>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field>
          <Label className={labelClass}>Digest</Label>
          <Select
            value={saved.digest}
            disabled={!saved.enabled || update.isPending}
            onChange={(e) => change({ digest: e.target.value as EmailSettingsView['digest'] })}
            className={controlClass}
          >
            <option value="off">Off: one mail per item</option>
            <option value="hourly">Hourly</option>
            <option value="daily">Daily</option>
          </Select>
        </Field>
        <Field>
          <Label className={labelClass}>Items in the digest: below</Label>
          <Select
            value={saved.digest_below}
            disabled={!saved.enabled || saved.digest === 'off' || update.isPending}
            onChange={(e) => change({ digest_below: e.target.value as EmailSettingsView['digest_below'] })}
            className={controlClass}
          >
            {LEVELS.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </Select>
        </Field>
      </div>
      {update.error ? <ErrorNotice error={update.error} /> : null}
    </Fieldset>
  );
}
