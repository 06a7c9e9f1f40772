import type { ErrorCode } from '@beckon/contracts/client';
import { TRPCClientError } from '@trpc/client';

/** The stable codes of error bodies (the table in docs/api.md). */
export type { ErrorCode };

/**
 * An error body as the API sends it: the sentence `error`, its stable `code`, plus fields that
 * depend on the status. `code` is absent only where no server answered in the API's shape (a
 * network failure, a proxy's page).
 */
export type ErrorBody = { error: string; code?: ErrorCode } & Record<string, unknown>;

/** Every failed call rejects with a BeckonError: `status` and `body` are exactly what REST answers. */
export class BeckonError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    options?: { cause?: unknown },
  ) {
    super(body.error, options);
    this.name = new.target.name;
  }
  /** The body's stable code (switch on it, not on the message); null without a server answer. */
  get code(): ErrorCode | null {
    return typeof this.body.code === 'string' ? this.body.code : null;
  }
}

const stringRecord = (value: unknown): Record<string, string> =>
  value && typeof value === 'object' ? (value as Record<string, string>) : {};

/** 400 (malformed request) and 422 (form answer refused): `fields` maps a field to its problem. */
export class ValidationError extends BeckonError {
  readonly fields: Record<string, string> = stringRecord(this.body.fields);
}
/** 400: the request itself is wrong (types, unknown fields, bad form definition). */
export class InvalidRequestError extends ValidationError {}
/** 401: missing, unknown, expired or revoked token. */
export class UnauthorizedError extends BeckonError {}
/** 402: a plan limit was reached. */
export class PlanLimitError extends BeckonError {
  readonly key = String(this.body.key);
  readonly limit = Number(this.body.limit);
  readonly current = Number(this.body.current);
  readonly upgrade_url = String(this.body.upgrade_url);
}
/** 403: `required` names the missing permission (null for other refusals). */
export class PermissionDeniedError extends BeckonError {
  readonly required: string | null = typeof this.body.required === 'string' ? this.body.required : null;
}
/** 404: unknown id, or one of another organization. */
export class NotFoundError extends BeckonError {}
/** 409: not allowed in the item's current state (`currentStatus`), or a uniqueness conflict. */
export class ConflictError extends BeckonError {
  readonly currentStatus: string | null = typeof this.body.status === 'string' ? this.body.status : null;
}
/** 410: gone (revoked, expired or used-up invitation). */
export class GoneError extends BeckonError {}
/** 413: body or attachment over `limit` bytes. */
export class PayloadTooLargeError extends BeckonError {}
/** 429: rate limited. `retryAfterSeconds`: the server's `Retry-After` (null when absent). */
export class RateLimitError extends BeckonError {
  readonly retryAfterSeconds: number | null = retryAfterOf(this.cause);
}

/** `Retry-After` in seconds from the response a tRPC error carries in `meta.response`. */
function retryAfterOf(cause: unknown): number | null {
  const meta = (cause as { meta?: { response?: { headers?: { get?: unknown } } } } | undefined)?.meta;
  const headers = meta?.response?.headers as { get?: (name: string) => string | null } | undefined;
  const value = typeof headers?.get === 'function' ? headers.get('retry-after') : null;
  return value && /^\d+$/.test(value.trim()) ? Number(value) : null;
}
/** 5xx. */
export class ServerError extends BeckonError {}
/** No answer from the server (connection refused or dropped, DNS...): status 0. */
export class NetworkError extends BeckonError {}

const byStatus: Record<number, typeof BeckonError> = {
  400: InvalidRequestError,
  401: UnauthorizedError,
  402: PlanLimitError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  413: PayloadTooLargeError,
  422: ValidationError,
  429: RateLimitError,
};

/** The class of an HTTP error status and its body. */
export function errorFromStatus(status: number, body: ErrorBody, cause?: unknown): BeckonError {
  const Class = byStatus[status] ?? (status >= 500 ? ServerError : BeckonError);
  return new Class(status, body, { cause });
}

/** Thrown by the SDK's fetch for an error answer that is not JSON (a proxy's 502 page...). */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(`HTTP ${status}`);
    this.name = 'HttpStatusError';
  }
}

export const isAbort = (error: unknown) =>
  error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');

type ErrorData = { httpStatus?: unknown; body?: unknown };

/** The text of an answer as an error body of the API (`{error: "<sentence>", ...}`), if it is one. */
function apiErrorBody(text: string): ErrorBody | null {
  try {
    const body: unknown = JSON.parse(text);
    const isBody = body !== null && typeof body === 'object' && typeof (body as ErrorBody).error === 'string';
    return isBody ? (body as ErrorBody) : null;
  } catch {
    return null;
  }
}

/**
 * Any failure of a call as a BeckonError. The server's tRPC errors carry the REST status and body in
 * `data.httpStatus` / `data.body`; an abort is returned as is (the caller asked for it).
 */
export function toBeckonError(error: unknown): Error {
  if (error instanceof BeckonError || isAbort(error)) return error as Error;
  if (error instanceof TRPCClientError) {
    const data = (error.data ?? {}) as ErrorData;
    if (typeof data.httpStatus === 'number') {
      const body =
        data.body && typeof data.body === 'object' ? (data.body as ErrorBody) : { error: error.message };
      return errorFromStatus(data.httpStatus, body, error);
    }
    return toBeckonError(error.cause ?? new NetworkError(0, { error: error.message }));
  }
  if (error instanceof HttpStatusError) {
    const body = apiErrorBody(error.text) ?? { error: error.text.slice(0, 200) || `HTTP ${error.status}` };
    return errorFromStatus(error.status, body, error);
  }
  let message = error instanceof Error ? error.message : String(error);
  // Node's fetch hides the reason (ECONNREFUSED, ENOTFOUND...) in its cause.
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  if (typeof code === 'string') message += ` (${code})`;
  return new NetworkError(0, { error: `network error: ${message}` }, { cause: error });
}
