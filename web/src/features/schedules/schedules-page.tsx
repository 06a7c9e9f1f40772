import { can } from '@beckon/contracts/permissions';
import { Field, Label, Select } from '@headlessui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useMemo, useState } from 'react';
import { Button } from '../../components/button';
import { cardClass, controlClass, FieldError, labelClass } from '../../components/field';
import { ErrorNotice, Loading } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { formatDateTime } from '../../lib/time';
import { authTrpc, trpc } from '../../lib/trpc';
import { SwapForm } from './swap-form';

const DAYS = 14;
const DAY_MS = 86_400_000;

/** The next two weeks of a schedule, one row per shift, with a bar placing it in the span. */
function Timeline({ id, from }: { id: string; from: string }) {
  const shifts = useQuery(trpc.schedules.shifts.queryOptions({ id, from, days: DAYS }));
  if (shifts.isPending) return <Loading />;
  if (shifts.error) return <ErrorNotice error={shifts.error} />;
  if (shifts.data.length === 0)
    return <p className="text-sm text-gray-700">Nobody is on call in the next two weeks.</p>;
  const start = Date.parse(from);
  const span = DAYS * DAY_MS;
  return (
    <ol aria-label="Shifts" className="space-y-1">
      {shifts.data.map((shift) => {
        const left = ((Date.parse(shift.starts_at) - start) / span) * 100;
        const width = Math.max(((Date.parse(shift.ends_at) - Date.parse(shift.starts_at)) / span) * 100, 0.5);
        return (
          <li key={shift.starts_at} className="grid grid-cols-[12rem_1fr] items-center gap-3 text-sm">
            <span className="truncate">
              <span className="font-medium text-gray-900">{shift.name}</span>
              <span className="block text-xs text-gray-700">
                {formatDateTime(shift.starts_at)} – {formatDateTime(shift.ends_at)}
              </span>
            </span>
            <span className="relative block h-3 rounded bg-gray-100" aria-hidden="true">
              <span
                className="absolute inset-y-0 rounded bg-indigo-600"
                style={{ left: `${Math.max(left, 0)}%`, width: `${Math.min(width, 100)}%` }}
              />
            </span>
          </li>
        );
      })}
    </ol>
  );
}

/** Puts a member on call for a period (a swap: the period is theirs over every layer). */
function OverrideForm({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const members = useQuery(trpc.admin.listMembers.queryOptions());
  const [userId, setUserId] = useState('');
  const [startsAt, setStartsAt] = useState('');
  const [endsAt, setEndsAt] = useState('');
  const create = useMutation(
    trpc.schedules.createOverride.mutationOptions({
      onSuccess: () => {
        setStartsAt('');
        setEndsAt('');
        void queryClient.invalidateQueries({ queryKey: trpc.schedules.shifts.queryKey() });
      },
    }),
  );
  const fields = errorBody(create.error)?.fields ?? {};
  const instant = (local: string) => (local ? new Date(local).toISOString() : '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ id, user_id: userId, starts_at: instant(startsAt), ends_at: instant(endsAt) });
  };
  return (
    <form
      noValidate
      onSubmit={submit}
      aria-label="New override"
      className="grid gap-3 sm:grid-cols-4 sm:items-end"
    >
      <Field>
        <Label className={labelClass}>Person</Label>
        <Select className={controlClass} value={userId} onChange={(e) => setUserId(e.target.value)}>
          <option value="">Choose…</option>
          {members.data?.map((m) => (
            <option key={m.user_id} value={m.user_id}>
              {m.name ?? m.email}
            </option>
          ))}
        </Select>
        <FieldError message={fields.user_id} label="Person" />
      </Field>
      <label className={labelClass}>
        From
        <input
          type="datetime-local"
          className={controlClass}
          value={startsAt}
          onChange={(e) => setStartsAt(e.target.value)}
        />
        <FieldError message={fields.starts_at} label="From" />
      </label>
      <label className={labelClass}>
        Until
        <input
          type="datetime-local"
          className={controlClass}
          value={endsAt}
          onChange={(e) => setEndsAt(e.target.value)}
        />
        <FieldError message={fields.ends_at} label="Until" />
      </label>
      <Button type="submit" variant="primary" disabled={create.isPending}>
        Add override
      </Button>
      {create.error && !Object.keys(fields).length ? (
        <ErrorNotice error={create.error} className="sm:col-span-4" />
      ) : null}
    </form>
  );
}

/** /schedules: each schedule's next two weeks, swaps of one's own shifts, and (for those who manage them) overrides. */
export function SchedulesPage() {
  const me = useQuery(authTrpc.accounts.me.queryOptions());
  const list = useQuery(trpc.schedules.list.queryOptions());
  const [chosen, setChosen] = useState<string | null>(null);
  const from = useMemo(() => {
    const today = new Date();
    today.setHours(0, 0, 0, 0);
    return today.toISOString();
  }, []);
  const canManage = me.data ? can(me.data.permissions, 'channels.manage') : false;
  if (list.isPending) return <Loading />;
  if (list.error) return <ErrorNotice error={list.error} />;
  const schedule = list.data.find((s) => s.id === chosen) ?? list.data[0];
  return (
    <div className="mx-auto max-w-5xl space-y-4 p-3 sm:p-4">
      <h1 className="text-xl font-semibold text-gray-900">On-call</h1>
      {!schedule ? (
        <p className="text-sm text-gray-700">No schedules yet: create them with POST /api/schedules.</p>
      ) : (
        <>
          <Field className="max-w-xs">
            <Label className={labelClass}>Schedule</Label>
            <Select className={controlClass} value={schedule.id} onChange={(e) => setChosen(e.target.value)}>
              {list.data.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </Select>
          </Field>
          <section aria-labelledby="timeline" className={cardClass}>
            <h2 id="timeline" className="font-semibold text-gray-900">
              Next two weeks ({schedule.time_zone})
            </h2>
            <Timeline id={schedule.id} from={from} />
          </section>
          {me.data && (
            <section aria-labelledby="swap" className={cardClass}>
              <h2 id="swap" className="font-semibold text-gray-900">
                Swap one of your shifts
              </h2>
              <SwapForm id={schedule.id} from={from} days={DAYS} me={me.data.user.id} />
            </section>
          )}
          {canManage && (
            <section aria-labelledby="override" className={cardClass}>
              <h2 id="override" className="font-semibold text-gray-900">
                Override: someone else on call for a while
              </h2>
              <OverrideForm id={schedule.id} />
            </section>
          )}
        </>
      )}
    </div>
  );
}
