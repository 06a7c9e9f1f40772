import { Select } from '@headlessui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/button';
import { cardClass, TextField } from '../../components/field';
import { ErrorNotice, Loading, Notice } from '../../components/notice';
import { errorBody, errorStatus } from '../../lib/errors';
import { trpc } from '../../lib/trpc';

/** The person's phone for items by SMS or WhatsApp: set it, enter the code it was texted, remove it. */
export function PhonePanel() {
  const queryClient = useQueryClient();
  const status = useQuery(trpc.twilio.phone.queryOptions());
  const refresh = {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.twilio.phone.queryKey() }),
  };
  const put = useMutation(trpc.twilio.putPhone.mutationOptions(refresh));
  const verify = useMutation(trpc.twilio.verifyPhone.mutationOptions(refresh));
  const remove = useMutation(trpc.twilio.deletePhone.mutationOptions(refresh));
  const [phone, setPhone] = useState('');
  const [channel, setChannel] = useState<'sms' | 'whatsapp'>('sms');
  const [code, setCode] = useState('');
  const current = status.data?.phone;
  const putFields = (errorBody(put.error)?.fields ?? {}) as Record<string, string>;
  const codeFields = (errorBody(verify.error)?.fields ?? {}) as Record<string, string>;
  const submitPhone = (event: FormEvent) => {
    event.preventDefault();
    put.mutate({ phone: phone.trim(), channel });
  };
  const submitCode = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate({ code: code.trim() });
  };
  return (
    <section className={cardClass} aria-labelledby="phone-heading">
      <h2 id="phone-heading" className="text-lg font-semibold text-gray-900">
        Phone
      </h2>
      {errorStatus(status.error) === 503 ? (
        <Notice>SMS and WhatsApp are not configured on this server.</Notice>
      ) : status.isError ? (
        <ErrorNotice error={status.error} />
      ) : status.isPending ? (
        <Loading />
      ) : (
        <div className="space-y-3">
          {current ? (
            <div className="flex flex-wrap items-center justify-between gap-2">
              <p className="text-sm text-gray-900">
                Items assigned to you come to <strong>{current.phone}</strong> by{' '}
                {current.channel === 'sms' ? 'SMS' : 'WhatsApp'}
                {current.verified ? '' : ' once verified'}
                {current.opted_out ? ' (paused: you replied STOP; reply START to resume)' : ''}.
              </p>
              <Button onClick={() => remove.mutate()} disabled={remove.isPending}>
                Remove
              </Button>
            </div>
          ) : (
            <p className="text-sm text-gray-900">
              Get items assigned to you as a text, and answer them with a reply.
            </p>
          )}
          {current && !current.verified ? (
            <form className="space-y-2" onSubmit={submitCode} aria-label="Verify phone">
              <TextField
                label="Code sent to your phone"
                value={code}
                onChange={setCode}
                error={codeFields.code}
              />
              <Button type="submit" variant="primary" disabled={verify.isPending}>
                Verify
              </Button>
              {verify.error && !codeFields.code ? <ErrorNotice error={verify.error} /> : null}
            </form>
          ) : null}
          <form className="space-y-2" onSubmit={submitPhone} aria-label="Phone number">
            <TextField
              label="Phone number"
              value={phone}
              onChange={setPhone}
              error={putFields.phone}
              placeholder="+15551234567"
            />
            <Select
              aria-label="Channel"
              value={channel}
              onChange={(event) => setChannel(event.target.value as 'sms' | 'whatsapp')}
              className="rounded-md border border-gray-400 bg-white px-2 py-1.5 text-sm text-gray-900 focus-ring"
            >
              <option value="sms">SMS</option>
              <option value="whatsapp">WhatsApp</option>
            </Select>
            {putFields.channel ? <p className="text-sm text-red-700">{putFields.channel}</p> : null}
            <Button type="submit" disabled={put.isPending}>
              Send a code
            </Button>
            {put.error && Object.keys(putFields).length === 0 ? <ErrorNotice error={put.error} /> : null}
          </form>
        </div>
      )}
    </section>
  );
}
