import type { ShiftView } from '@beckon/contracts/schedules/schedules.contract';
import { Field, Label, Select } from '@headlessui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/button';
import { controlClass, labelClass } from '../../components/field';
import { ErrorNotice } from '../../components/notice';
import { formatDateTime } from '../../lib/time';
import { trpc } from '../../lib/trpc';

const keyOf = (shift: ShiftView) => `${shift.user_id}@${shift.starts_at}`;
const spanOf = (shift: ShiftView) => ({ starts_at: shift.starts_at, ends_at: shift.ends_at });
const labelOf = (shift: ShiftView) =>
  `${shift.name}: ${formatDateTime(shift.starts_at)} – ${formatDateTime(shift.ends_at)}`;

/**
 * Swaps one of the caller's shifts of the timeline with someone else's: they are on call for
 * the caller's shift, the caller for theirs (two overrides, POST /schedules/{id}/swaps).
 */
export function SwapForm({ id, from, days, me }: { id: string; from: string; days: number; me: string }) {
  const queryClient = useQueryClient();
  const shifts = useQuery(trpc.schedules.shifts.queryOptions({ id, from, days }));
  const [mine, setMine] = useState('');
  const [theirs, setTheirs] = useState('');
  const swap = useMutation(
    trpc.schedules.swap.mutationOptions({
      onSuccess: () => {
        setMine('');
        setTheirs('');
        void queryClient.invalidateQueries({ queryKey: trpc.schedules.shifts.queryKey() });
      },
    }),
  );
  const own = shifts.data?.filter((s) => s.user_id === me) ?? [];
  const others = shifts.data?.filter((s) => s.user_id !== me) ?? [];
  if (own.length === 0 || others.length === 0)
    return <p className="text-sm text-gray-700">You have no shift to swap in the next two weeks.</p>;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const given = own.find((s) => keyOf(s) === mine);
    const taken = others.find((s) => keyOf(s) === theirs);
    if (!given || !taken) return;
    swap.mutate({ id, with_user_id: taken.user_id, mine: spanOf(given), theirs: spanOf(taken) });
  };
  return (
    <form
      noValidate
      onSubmit={submit}
      aria-label="Swap shifts"
      className="grid gap-3 sm:grid-cols-3 sm:items-end"
    >
      <Field>
        <Label className={labelClass}>Your shift</Label>
        <Select className={controlClass} value={mine} onChange={(e) => setMine(e.target.value)}>
          <option value="">Choose…</option>
          {own.map((s) => (
            <option key={keyOf(s)} value={keyOf(s)}>
              {labelOf(s)}
            </option>
          ))}
        </Select>
      </Field>
      <Field>
        <Label className={labelClass}>Their shift</Label>
        <Select className={controlClass} value={theirs} onChange={(e) => setTheirs(e.target.value)}>
          <option value="">Choose…</option>
          {others.map((s) => (
            <option key={keyOf(s)} value={keyOf(s)}>
              {labelOf(s)}
            </option>
          ))}
        </Select>
      </Field>
      <Button type="submit" variant="primary" disabled={swap.isPending || !mine || !theirs}>
        Swap
      </Button>
      {swap.error ? <ErrorNotice error={swap.error} className="sm:col-span-3" /> : null}
    </form>
  );
}
