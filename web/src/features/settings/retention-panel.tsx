import { RETENTION_FIELDS } from '@beckon/contracts/retention/retention.contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/button';
import { cardClass, TextField } from '../../components/field';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { type AppOutputs, trpc } from '../../lib/trpc';

type Policy = AppOutputs['retention']['get'];
type Period = (typeof RETENTION_FIELDS)[number];

const LABELS: Record<Period, string> = {
  items_days: 'Closed items: days after creation',
  archived_items_days: 'Archived items: days after archiving',
  comments_days: 'Comments: days',
  attachments_days: 'Attachments: days',
  audit_days: 'Audit log: days',
};

const asText = (policy: Policy) =>
  Object.fromEntries(RETENTION_FIELDS.map((f) => [f, policy[f] === null ? '' : String(policy[f])])) as Record<
    Period,
    string
  >;

/** How long the organization keeps its data (org.manage): an empty period keeps it forever. */
export function RetentionPanel() {
  const policy = useQuery(trpc.retention.get.queryOptions());
  if (policy.isPending) return <Loading />;
  if (policy.isError) return <ErrorNotice error={policy.error} />;
  return <RetentionForm policy={policy.data} />;
}

function RetentionForm({ policy }: { policy: Policy }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState(() => asText(policy));
  const save = useMutation(
    trpc.retention.put.mutationOptions({
      onSuccess: (next) => {
        queryClient.setQueryData(trpc.retention.get.queryKey(), next);
        setValues(asText(next));
      },
    }),
  );
  const fields = errorBody(save.error)?.fields ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const days = (text: string) => (text.trim() === '' ? null : Number(text));
    save.mutate(Object.fromEntries(RETENTION_FIELDS.map((f) => [f, days(values[f])])));
  };
  return (
    <section className={cardClass} aria-label="Data retention">
      <h2 className="text-base font-semibold text-gray-900">Data retention</h2>
      <p className="text-sm text-gray-800">
        Data past its period is removed hourly. Leave a period empty to keep that data forever; open items are
        kept until they close. The audit log is kept at most {policy.plan_audit_days} days on this plan.
      </p>
      <form noValidate onSubmit={submit} className="space-y-3">
        <div className="grid gap-3 sm:grid-cols-2">
          {RETENTION_FIELDS.map((f) => (
            <TextField
              key={f}
              label={LABELS[f]}
              type="number"
              min={1}
              max={f === 'audit_days' ? policy.plan_audit_days : undefined}
              placeholder={f === 'audit_days' ? `${policy.plan_audit_days} (the plan’s)` : 'forever'}
              value={values[f]}
              onChange={(value) => setValues((current) => ({ ...current, [f]: value }))}
              error={fields[f]}
            />
          ))}
        </div>
        <Button type="submit" variant="primary" disabled={save.isPending}>
          Save periods
        </Button>
        {save.isSuccess ? <Notice>Saved.</Notice> : null}
        {save.error && !errorBody(save.error)?.fields ? <ErrorNotice error={save.error} /> : null}
      </form>
    </section>
  );
}
