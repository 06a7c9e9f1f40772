import type { ErrorCode } from '@beckon/contracts/errors';
import { TRPCClientError } from '@trpc/client';

/**
 * The API's error body (docs/api.md): `error`, its stable `code` (absent for failures the browser
 * reports itself), plus `fields` for 400 and 422, and others.
 */
export type ApiErrorBody = {
  error: string;
  code?: ErrorCode;
  fields?: Record<string, string>;
  [key: string]: unknown;
};

/** A REST call that failed (uploads and downloads go over REST). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.error);
  }
}

const isBody = (value: unknown): value is ApiErrorBody =>
  typeof value === 'object' && value !== null && typeof (value as { error?: unknown }).error === 'string';

/** tRPC errors carry the exact REST body in `data.body` and its status in `data.httpStatus`. */
export function errorBody(error: unknown): ApiErrorBody | null {
  if (!error) return null;
  if (error instanceof ApiError) return error.body;
  if (error instanceof TRPCClientError) {
    const data: unknown = error.data;
    const body = (data as { body?: unknown } | undefined)?.body;
    if (isBody(body)) return body;
    if (error.message === 'Failed to fetch') return { error: 'the server could not be reached' };
    return { error: error.message };
  }
  if (error instanceof Error) return { error: error.message };
  return { error: String(error) };
}

export function errorStatus(error: unknown): number | undefined {
  if (error instanceof ApiError) return error.status;
  if (error instanceof TRPCClientError) {
    const status = (error.data as { httpStatus?: unknown } | undefined)?.httpStatus;
    return typeof status === 'number' ? status : undefined;
  }
  return undefined;
}

/** One line for people: the API's `error`, and what it names (a permission, a field). */
export function errorMessage(error: unknown): string {
  const body = errorBody(error);
  if (!body) return '';
  if (typeof body.required === 'string') return `${body.error} (${body.required})`;
  return body.error;
}
