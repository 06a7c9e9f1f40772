import { weekdays } from '@beckon/contracts/schedules/schedules.contract';
import { Select } from '@headlessui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/button';
import { cardClass, TextField } from '../../components/field';
import { ErrorNotice, Loading } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { formatDateTime } from '../../lib/time';
import { type AppOutputs, authTrpc, trpc } from '../../lib/trpc';

type Weekday = (typeof weekdays)[number];
const DAY_LABELS: Record<Weekday, string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
};

/**
 * The person's availability in this organization: working hours (outside them others the
 * notification is for are told first) and out-of-office periods with a delegate, who receives
 * their notifications and may answer in their place.
 */
export function AvailabilityPanel() {
  const availability = useQuery(trpc.availability.get.queryOptions());
  return (
    <section className={cardClass} aria-labelledby="availability-heading">
      <h2 id="availability-heading" className="text-lg font-semibold text-gray-900">
        Availability
      </h2>
      {availability.isError ? (
        <ErrorNotice error={availability.error} />
      ) : availability.isPending ? (
        <Loading />
      ) : (
        <>
          <WorkingHoursForm current={availability.data.working_hours} />
          <OutOfOffice periods={availability.data.out_of_office} />
        </>
      )}
    </section>
  );
}

type Availability = AppOutputs['availability']['get'];

function useRefresh() {
  const queryClient = useQueryClient();
  return { onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.availability.get.queryKey() }) };
}

function WorkingHoursForm({ current }: { current: Availability['working_hours'] }) {
  const window = current?.windows[0];
  const [zone, setZone] = useState(current?.time_zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone);
  const [days, setDays] = useState<Weekday[]>(window?.days ?? ['mon', 'tue', 'wed', 'thu', 'fri']);
  const [from, setFrom] = useState(window?.from ?? '09:00');
  const [to, setTo] = useState(window?.to ?? '18:00');
  const save = useMutation(trpc.availability.setWorkingHours.mutationOptions(useRefresh()));
  const fields = (errorBody(save.error)?.fields ?? {}) as Record<string, string>;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const ordered = weekdays.filter((d) => days.includes(d));
    save.mutate({ working_hours: { time_zone: zone.trim(), windows: [{ days: ordered, from, to }] } });
  };
  const toggle = (day: Weekday) =>
    setDays((list) => (list.includes(day) ? list.filter((d) => d !== day) : [...list, day]));
  return (
    <form className="space-y-2" onSubmit={submit} aria-label="Working hours">
      <p className="text-sm text-gray-900">
        {current
          ? `Working hours: ${current.windows.map((w) => `${w.days.map((d) => DAY_LABELS[d]).join(', ')} ${w.from}–${w.to}`).join('; ')} (${current.time_zone}).`
          : 'Always available: no working hours set.'}
      </p>
      <fieldset className="flex flex-wrap gap-3">
        <legend className="sr-only">Days</legend>
        {weekdays.map((day) => (
          <label key={day} className="flex items-center gap-1 text-sm text-gray-900">
            <input type="checkbox" checked={days.includes(day)} onChange={() => toggle(day)} />
            {DAY_LABELS[day]}
          </label>
        ))}
      </fieldset>
      <div className="grid gap-3 sm:grid-cols-3">
        <TextField label="From" type="time" value={from} onChange={setFrom} />
        <TextField label="To" type="time" value={to} onChange={setTo} />
        <TextField
          label="Time zone"
          value={zone}
          onChange={setZone}
          error={fields['working_hours.time_zone']}
        />
      </div>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="primary" disabled={save.isPending}>
          Save working hours
        </Button>
        {current ? (
          <Button onClick={() => save.mutate({ working_hours: null })} disabled={save.isPending}>
            Always available
          </Button>
        ) : null}
      </div>
      {save.error && !fields['working_hours.time_zone'] ? <ErrorNotice error={save.error} /> : null}
    </form>
  );
}

function OutOfOffice({ periods }: { periods: Availability['out_of_office'] }) {
  const refresh = useRefresh();
  // Members to delegate to, for those who may list them; the others go away without a delegate.
  const members = useQuery({ ...trpc.admin.listMembers.queryOptions(), retry: false });
  const me = useQuery(authTrpc.accounts.me.queryOptions());
  const create = useMutation(trpc.availability.createOutOfOffice.mutationOptions(refresh));
  const remove = useMutation(trpc.availability.deleteOutOfOffice.mutationOptions(refresh));
  const [startsAt, setStartsAt] = useState('');
  const [endsAt, setEndsAt] = useState('');
  const [delegate, setDelegate] = useState('');
  const fields = (errorBody(create.error)?.fields ?? {}) as Record<string, string>;
  const nameOf = (id: string | null) =>
    id ? (members.data?.find((m) => m.user_id === id)?.name ?? 'a colleague') : 'nobody';
  const instant = (local: string) => (local ? new Date(local).toISOString() : '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({
      starts_at: instant(startsAt),
      ends_at: instant(endsAt),
      ...(delegate ? { delegate_id: delegate } : {}),
    });
  };
  const others = (members.data ?? []).filter((m) => m.user_id !== me.data?.user.id);
  return (
    <div className="space-y-2">
      <h3 className="text-base font-semibold text-gray-900">Out of office</h3>
      {periods.length === 0 ? (
        <p className="text-sm text-gray-900">No time away planned.</p>
      ) : (
        <ul className="space-y-1">
          {periods.map((p) => (
            <li
              key={p.id}
              className="flex flex-wrap items-center justify-between gap-2 text-sm text-gray-900"
            >
              <span>
                Away {formatDateTime(p.starts_at)} – {formatDateTime(p.ends_at)}, delegate:{' '}
                {nameOf(p.delegate_id)}
              </span>
              <Button onClick={() => remove.mutate({ id: p.id })} disabled={remove.isPending}>
                Delete
              </Button>
            </li>
          ))}
        </ul>
      )}
      <form
        noValidate
        className="grid gap-3 sm:grid-cols-4 sm:items-end"
        onSubmit={submit}
        aria-label="New time away"
      >
        <TextField
          label="Away from"
          type="datetime-local"
          value={startsAt}
          onChange={setStartsAt}
          error={fields.starts_at}
        />
        <TextField
          label="Back on"
          type="datetime-local"
          value={endsAt}
          onChange={setEndsAt}
          error={fields.ends_at}
        />
        {others.length > 0 ? (
          <Select
            aria-label="Delegate"
            value={delegate}
            onChange={(event) => setDelegate(event.target.value)}
            className="rounded-md border border-gray-400 bg-white px-2 py-2 text-sm text-gray-900 focus-ring"
          >
            <option value="">No delegate</option>
            {others.map((m) => (
              <option key={m.user_id} value={m.user_id}>
                {m.name ?? m.email}
              </option>
            ))}
          </Select>
        ) : null}
        <Button type="submit" disabled={create.isPending}>
          Add time away
        </Button>
      </form>
      {create.error && !fields.starts_at && !fields.ends_at ? <ErrorNotice error={create.error} /> : null}
    </div>
  );
}
