import type { Identity } from '../auth/identity';
import type { AppError } from '../errors';

/** What the resource process's rate limit leaves on a request (http/api-rate-limit.ts). */
declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, once resolved by the rate limit (undefined: not yet; null: no valid credential). */
    identity: Identity | null | undefined;
    /** The 429 of a POST /mcp over the limit, answered once its body is read (rejectLimitedMcp). */
    rateLimitError: AppError | null;
    /** Counts more requests of the caller (each further message of a batch); the 429 past the limit. */
    countMore: ((hits: number) => AppError | null) | null;
  }
}
