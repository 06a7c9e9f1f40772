import { Field, Label, Textarea } from '@headlessui/react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Button } from '../../components/button';
import { ErrorNotice, Loading } from '../../components/notice';
import { errorBody } from '../../lib/errors';
import { formatDateTime, formatRelative } from '../../lib/time';
import { trpc } from '../../lib/trpc';
import { actorLabel, sentenceStart } from './names';

export function Comments({ itemId }: { itemId: string }) {
  const queryClient = useQueryClient();
  const comments = useQuery(trpc.items.comments.queryOptions({ id: itemId }));
  const [body, setBody] = useState('');
  const add = useMutation(
    trpc.items.addComment.mutationOptions({
      onSuccess: () => {
        setBody('');
        void queryClient.invalidateQueries({ queryKey: trpc.items.comments.queryKey({ id: itemId }) });
        void queryClient.invalidateQueries({ queryKey: trpc.items.timeline.queryKey({ id: itemId }) });
      },
    }),
  );
  const fieldError = errorBody(add.error)?.fields?.body;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({ id: itemId, body });
  };

  return (
    <section aria-labelledby="comments-heading" className="space-y-3">
      <h2 id="comments-heading" className="text-base font-semibold text-gray-900">
        Comments
      </h2>
      {comments.isPending ? (
        <Loading />
      ) : comments.isError ? (
        <ErrorNotice error={comments.error} />
      ) : comments.data.length === 0 ? (
        <p className="text-sm text-gray-700">No comments yet.</p>
      ) : (
        <ol className="space-y-2" aria-label="Comments">
          {comments.data.map((comment) => (
            <li key={comment.id} className="rounded-md border border-gray-200 bg-white p-3">
              <p className="text-xs text-gray-700">
                <span className="font-medium text-gray-900">
                  {sentenceStart(actorLabel({ type: comment.actor_type }, comment.actor_name))}
                </span>{' '}
                ·{' '}
                <time dateTime={comment.created_at} title={formatDateTime(comment.created_at)}>
                  {formatRelative(comment.created_at)}
                </time>
              </p>
              <p className="mt-1 text-sm whitespace-pre-wrap text-gray-900">{comment.body}</p>
            </li>
          ))}
        </ol>
      )}
      <form noValidate onSubmit={submit} className="space-y-2">
        <Field>
          <Label className="block text-sm font-medium text-gray-900">Add a comment</Label>
          <Textarea
            rows={3}
            value={body}
            invalid={fieldError !== undefined}
            onChange={(event) => setBody(event.target.value)}
            className="mt-1 block w-full rounded-md border border-gray-400 px-3 py-2 text-sm focus-ring data-invalid:border-red-700"
          />
        </Field>
        {add.error ? <ErrorNotice error={add.error} /> : null}
        <Button type="submit" disabled={add.isPending}>
          Add comment
        </Button>
      </form>
    </section>
  );
}
