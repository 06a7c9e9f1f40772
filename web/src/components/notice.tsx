import type { ReactNode } from 'react';
import { type ApiErrorBody, errorBody } from '../lib/errors';

/** The API's error, shown as it is: its `error`, the permission it needs, each field's message. */
export function ErrorNotice({ error, className = '' }: { error: unknown; className?: string }) {
  const body: ApiErrorBody | null = errorBody(error);
  if (!body) return null;
  const fields = body.fields ? Object.entries(body.fields) : [];
  return (
    <div
      role="alert"
      className={`rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 ${className}`}
    >
      <p className="font-medium">
        {body.error}
        {typeof body.required === 'string' ? ` (${body.required})` : ''}
      </p>
      {fields.length > 0 && (
        <ul className="mt-1 list-disc pl-5">
          {fields.map(([field, message]) => (
            <li key={field}>
              <code>{field}</code>: {message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Notice({ children, tone = 'info' }: { children: ReactNode; tone?: 'info' | 'success' }) {
  const colours =
    tone === 'success'
      ? 'border-green-300 bg-green-50 text-green-900'
      : 'border-sky-300 bg-sky-50 text-sky-950';
  return (
    <div role="status" className={`rounded-md border p-3 text-sm ${colours}`}>
      {children}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p role="status" className="p-4 text-sm text-gray-700">
      {label}
    </p>
  );
}
