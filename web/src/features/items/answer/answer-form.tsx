import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../../components/button';
import { errorBody } from '../../../lib/errors';
import { asSentence } from '../../../lib/field-messages';
import { appClient, type Form, type Item } from '../../../lib/trpc';
import { StepUpNotice, withStepUp } from '../../passkeys/step-up';
import { applyItem } from '../item-cache';
import { FieldInput } from './field-inputs';

type Values = Record<string, unknown>;

const initialValues = (form: Form): Values =>
  Object.fromEntries(
    form.fields.flatMap((field) => (field.default === undefined ? [] : [[field.id, field.default]])),
  );

/** What is sent: blank text is "not answered" (the server says whether that is allowed). */
function toAnswer(form: Form, values: Values): Values {
  const answer: Values = {};
  for (const field of form.fields) {
    const value = values[field.id];
    if (field.type === 'checkbox') answer[field.id] = value === true;
    else if (value === undefined || value === '') continue;
    else if (field.type === 'number') answer[field.id] = Number.isNaN(Number(value)) ? value : Number(value);
    else answer[field.id] = value;
  }
  return answer;
}

/**
 * What the alert above the button says: how many answers need attention (their sentences are
 * beside the fields), else the API's error as a sentence.
 */
function summary(error: string, fields: Record<string, string>, known: Set<string>): string {
  const beside = Object.keys(fields).filter((id) => known.has(id)).length;
  if (beside === 1) return 'One answer needs attention: see the message beside it.';
  if (beside > 1) return `${beside} answers need attention: see the messages beside them.`;
  return asSentence(error);
}

/**
 * The item's form. Nothing is checked in the browser: the server's 422 `fields` are shown next to
 * each field, as sentences (lib/field-messages.ts), so the dashboard never disagrees with the API.
 * Errors for keys that are not fields of the form are listed in the alert.
 */
export function AnswerForm({ item, form }: { item: Item; form: Form }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Values>(() => initialValues(form));
  const mutation = useMutation({
    // A risky decision asks for the passkey when the server wants a fresh verification.
    mutationFn: (answer: Values) =>
      withStepUp(item, () => appClient.items.answer.mutate({ id: item.id, values: answer })),
    onSuccess: (answered) => applyItem(queryClient, answered),
  });
  const body = errorBody(mutation.error);
  const fieldErrors = body?.fields ?? {};
  const known = new Set(form.fields.map((f) => f.id));
  const otherErrors = Object.entries(fieldErrors).filter(([id]) => !known.has(id));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutation.mutate(toAnswer(form, values));
  };

  return (
    <form noValidate onSubmit={submit} aria-label="Answer" className="space-y-5">
      {form.fields.map((field) => (
        <FieldInput
          key={field.id}
          field={field}
          value={values[field.id]}
          error={fieldErrors[field.id]}
          onChange={(value) => setValues((current) => ({ ...current, [field.id]: value }))}
        />
      ))}
      {body && (
        <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          <p className="font-medium">{summary(body.error, fieldErrors, known)}</p>
          {otherErrors.length > 0 && (
            <ul className="mt-1 list-disc pl-5">
              {otherErrors.map(([id, message]) => (
                <li key={id}>
                  <code>{id}</code>: {message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <StepUpNotice item={item} />
      <Button type="submit" variant="primary" disabled={mutation.isPending}>
        {mutation.isPending ? 'Sending…' : 'Submit answer'}
      </Button>
    </form>
  );
}
