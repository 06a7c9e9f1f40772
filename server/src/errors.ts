import { ERROR_CODES, type ErrorBody, type ErrorCode, type ErrorCodeOf } from '@beckon/contracts/errors';
import { type TRPC_ERROR_CODE_KEY, TRPCError } from '@trpc/server';
import type { z } from 'zod';

export type PlanLimit = { key: string; limit: number; current: number; upgrade_url: string };

/**
 * The one error type services throw. `status` and `body` are exactly what REST answers;
 * tRPC and JSON-RPC carry the same body (see toTrpcCode and toJsonRpcError). Every body has its
 * stable `code` (contracts/src/errors.ts), and `error` the sentence.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.error);
    this.name = 'AppError';
  }

  /** An error of `code` (its status from the table) with the sentence `error` and more fields. */
  static of(code: ErrorCode, error: string, extra: Record<string, unknown> = {}) {
    return new AppError(ERROR_CODES[code].status, { error, code, ...extra });
  }
  static invalid(fields: Record<string, string>) {
    return AppError.of('invalid_request', 'invalid request', { fields });
  }
  static unauthorized(challenge: string) {
    return new AppError(
      401,
      { error: 'unauthorized', code: 'unauthorized' },
      { 'www-authenticate': challenge },
    );
  }
  static paymentRequired(limit: PlanLimit) {
    return AppError.of('plan_limit_exceeded', 'plan_limit_exceeded', limit);
  }
  static permissionDenied(required: string) {
    return AppError.of('permission_denied', 'permission denied', { required });
  }
  static forbidden(code: ErrorCodeOf<403>, reason: string) {
    return AppError.of(code, reason);
  }
  static notFound() {
    return AppError.of('not_found', 'not found');
  }
  static conflict(code: ErrorCodeOf<409>, reason: string, extra: Record<string, unknown> = {}) {
    return AppError.of(code, reason, extra);
  }
  static gone(code: ErrorCodeOf<410>, reason: string) {
    return AppError.of(code, reason);
  }
  static payloadTooLarge(limit: number) {
    return AppError.of('payload_too_large', 'payload too large', { limit });
  }
  static unsupportedMediaType() {
    return AppError.of('unsupported_media_type', 'unsupported media type: send application/json');
  }
  static validationFailed(fields: Record<string, string>) {
    return AppError.of('validation_failed', 'validation failed', { fields });
  }
  /** A 422 that is not about form fields (e.g. an idempotency key reused with another body). */
  static validationFailedWith(code: ErrorCodeOf<422>, reason: string) {
    return AppError.of(code, reason);
  }
  /** `headers`: the RateLimit fields of the limit that was met (`rateLimitHeaders`, rate-limit/policy.ts). */
  static rateLimited(retryAfterSeconds: number, headers: Record<string, string> = {}) {
    return new AppError(
      429,
      { error: 'rate limited', code: 'rate_limited' },
      { ...headers, 'retry-after': String(retryAfterSeconds) },
    );
  }
  static unavailable(code: ErrorCodeOf<503>, reason: string) {
    return AppError.of(code, reason);
  }
  /** The database cannot be reached: try again after `retryAfterSeconds` (database-watch.ts). */
  static databaseUnavailable(retryAfterSeconds = DATABASE_RETRY_AFTER_SECONDS) {
    return new AppError(
      503,
      { error: 'database unavailable', code: 'database_unavailable' },
      { 'retry-after': String(retryAfterSeconds) },
    );
  }
  /** The attachment store (S3-compatible bucket) failed or cannot be reached (storage/s3-storage.ts). */
  static storageUnavailable() {
    return new AppError(
      503,
      { error: 'storage unavailable', code: 'storage_unavailable' },
      { 'retry-after': '5' },
    );
  }
  static internal() {
    return AppError.of('internal_error', 'internal error');
  }
}

/** Retry-After of a 503 for an unreachable database when no configured value is at hand. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * Errors that mean the database cannot be reached (rather than a query that failed): refused or
 * cut connections, postgres.js's own connection errors, SQLSTATE class 08 (connection
 * exception), 57P01–57P03 (shutting down, crashed, starting up), 53300 (no connection slot) and
 * 25006 (a write refused as read-only: Beckon opens no read-only transaction, so the server is a
 * standby, reached during a failover before its promotion ended).
 * drizzle and tRPC wrap them, so the causes are followed.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '25006',
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 6; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)))
      return true;
    // Several addresses tried (localhost as ::1 and 127.0.0.1): every one refused.
    if (cause instanceof AggregateError && cause.errors.some((e) => isDatabaseUnavailable(e))) return true;
    cause = cause.cause;
  }
  return false;
}

/** `{ "a.b": "message" }` from zod issues; the root is named `body`. */
export function fieldsFromZod(issues: readonly z.core.$ZodIssue[]): Record<string, string> {
  const fields: Record<string, string> = {};
  const name = (path: readonly PropertyKey[]) => (path.length ? path.map(String).join('.') : 'body');
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) fields[name([...issue.path, key])] ??= 'unknown field';
    } else {
      fields[name(issue.path)] ??= missing(issue) ? 'Required' : issue.message;
    }
  }
  return fields;
}

/**
 * A field left out: zod words it by the type it expected ("Invalid input: expected string,
 * received undefined"); the API says `Required`, as its own checks do.
 */
const missing = (issue: z.core.$ZodIssue) =>
  issue.code === 'invalid_type' && issue.message.endsWith('received undefined');

const isZodError = (e: unknown): e is { issues: z.core.$ZodIssue[] } =>
  e instanceof Error && e.name === 'ZodError' && Array.isArray((e as { issues?: unknown }).issues);

/** Any error thrown on a request path, as the AppError the client will see. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause;
    // Input validation fails as BAD_REQUEST; a zod failure under any other code is the output
    // validation of a procedure, a server bug (500), not the client's mistake.
    if (error.code === 'BAD_REQUEST' && isZodError(error.cause)) {
      return AppError.invalid(fieldsFromZod(error.cause.issues));
    }
    switch (error.code) {
      case 'PARSE_ERROR':
        return AppError.invalid({ body: 'malformed JSON' });
      case 'BAD_REQUEST':
        return AppError.invalid({ body: error.message });
      case 'NOT_FOUND':
      case 'METHOD_NOT_SUPPORTED':
        return AppError.notFound();
      case 'PAYLOAD_TOO_LARGE':
        return AppError.payloadTooLarge(0);
      case 'UNSUPPORTED_MEDIA_TYPE':
        return AppError.unsupportedMediaType();
    }
  }
  if (isZodError(error)) return AppError.invalid(fieldsFromZod(error.issues));
  if (isDatabaseUnavailable(error)) return AppError.databaseUnavailable();
  return AppError.internal();
}

const TRPC_CODES: Record<number, TRPC_ERROR_CODE_KEY> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

export const toTrpcCode = (status: number): TRPC_ERROR_CODE_KEY =>
  TRPC_CODES[status] ?? 'INTERNAL_SERVER_ERROR';

/**
 * JSON-RPC error for the agent interface: -32002 is the specification's quota code; the other
 * application errors use -32000 - (status - 400), and invalid arguments the standard -32602.
 */
export function toJsonRpcError(error: AppError): { code: number; message: string; data: ErrorBody } {
  const code =
    error.status === 402
      ? -32002
      : error.status === 400 || error.status === 422
        ? -32602
        : error.status >= 500
          ? -32603
          : -32000 - (error.status - 400);
  return { code, message: error.body.error, data: error.body };
}

/** A unique violation on the given constraint (Postgres 23505). */
export const isUniqueViolation = (error: unknown, constraint: string) =>
  typeof error === 'object' &&
  error !== null &&
  (error as { code?: unknown }).code === '23505' &&
  (error as { constraint_name?: unknown }).constraint_name === constraint;
