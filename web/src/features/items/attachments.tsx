import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Button, buttonClass } from '../../components/button';
import { Modal } from '../../components/modal';
import { ErrorNotice, Loading } from '../../components/notice';
import { rest, restJson } from '../../lib/rest';
import { type AppOutputs, trpc } from '../../lib/trpc';

type Attachment = AppOutputs['attachments']['list'][number];

const size = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The file as base64 (the upload body is JSON, docs/api.md). */
async function toBase64(file: File): Promise<string> {
  const dataUrl = await new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'));
    reader.readAsDataURL(file);
  });
  return dataUrl.slice(dataUrl.indexOf(',') + 1);
}

/** Downloads need the bearer token, so the file is fetched and handed to the browser as a blob. */
async function download(itemId: string, attachment: Attachment) {
  const response = await rest(`/api/items/${itemId}/attachments/${attachment.id}/download`);
  const url = URL.createObjectURL(await response.blob());
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = attachment.filename;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function Attachments({ itemId }: { itemId: string }) {
  const queryClient = useQueryClient();
  const inputId = useId();
  const listKey = trpc.attachments.list.queryKey({ id: itemId });
  const attachments = useQuery(trpc.attachments.list.queryOptions({ id: itemId }));
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: listKey });
    void queryClient.invalidateQueries({ queryKey: trpc.items.timeline.queryKey({ id: itemId }) });
  };
  // Uploads go over REST: its route accepts the 10 MiB file's 13.4 MiB base64 body.
  const upload = useMutation({
    mutationFn: async (file: File) =>
      restJson<Attachment>(`/api/items/${itemId}/attachments`, 'POST', {
        filename: file.name,
        content_type: file.type || 'application/octet-stream',
        data: await toBase64(file),
      }),
    onSuccess: refresh,
  });
  const fetchFile = useMutation({ mutationFn: (a: Attachment) => download(itemId, a) });
  const remove = useMutation(trpc.attachments.delete.mutationOptions({ onSuccess: refresh }));
  const [confirming, setConfirming] = useState<Attachment | null>(null);

  return (
    <section aria-labelledby="attachments-heading" className="space-y-3">
      <div className="flex items-center justify-between gap-2">
        <h2 id="attachments-heading" className="text-base font-semibold text-gray-900">
          Attachments
        </h2>
        <div>
          <input
            id={inputId}
            type="file"
            className="peer sr-only"
            onChange={(event) => {
              const file = event.target.files?.[0];
              if (file) upload.mutate(file);
              event.target.value = '';
            }}
          />
          <label
            htmlFor={inputId}
            className={`${buttonClass('secondary', 'sm')} cursor-pointer peer-focus-visible:outline-2 peer-focus-visible:outline-offset-2 peer-focus-visible:outline-indigo-600`}
          >
            {upload.isPending ? 'Uploading…' : 'Upload a file'}
          </label>
        </div>
      </div>
      {upload.error ? <ErrorNotice error={upload.error} /> : null}
      {fetchFile.error ? <ErrorNotice error={fetchFile.error} /> : null}
      {remove.error ? <ErrorNotice error={remove.error} /> : null}
      {attachments.isPending ? (
        <Loading />
      ) : attachments.isError ? (
        <ErrorNotice error={attachments.error} />
      ) : attachments.data.length === 0 ? (
        <p className="text-sm text-gray-700">No attachments.</p>
      ) : (
        <ul
          className="divide-y divide-gray-200 rounded-md border border-gray-200 bg-white"
          aria-label="Attachments"
        >
          {attachments.data.map((attachment) => (
            <li key={attachment.id} className="flex flex-wrap items-center gap-2 px-3 py-2">
              <span className="min-w-0 flex-1 truncate text-sm text-gray-900">
                {attachment.filename}{' '}
                <span className="text-xs text-gray-700">
                  ({size(attachment.size)}, {attachment.content_type})
                </span>
              </span>
              <Button
                size="sm"
                aria-label={`Download ${attachment.filename}`}
                onClick={() => fetchFile.mutate(attachment)}
              >
                Download
              </Button>
              <Button
                size="sm"
                aria-label={`Delete ${attachment.filename}`}
                onClick={() => setConfirming(attachment)}
              >
                Delete
              </Button>
            </li>
          ))}
        </ul>
      )}
      <Modal open={confirming !== null} onClose={() => setConfirming(null)} title="Delete this attachment?">
        <p className="text-sm text-gray-800">
          {confirming?.filename} will be removed from the item and from storage.
        </p>
        <div className="mt-4 flex justify-end gap-2">
          <Button onClick={() => setConfirming(null)}>Cancel</Button>
          <Button
            variant="danger"
            onClick={() => {
              if (confirming) remove.mutate({ id: itemId, aid: confirming.id });
              setConfirming(null);
            }}
          >
            Delete
          </Button>
        </div>
      </Modal>
    </section>
  );
}
