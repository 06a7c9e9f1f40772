import type { OpenApiMeta } from 'trpc-to-openapi';

/** What a procedure's contract says besides its schemas: its REST route and how it answers. */
export type Meta = OpenApiMeta & {
  /** HTTP status of a successful REST call (default 200; creations answer 201). */
  status?: number;
  /** Largest JSON body the REST route accepts, in bytes (default BODY_LIMIT, 1 MiB). */
  bodyLimit?: number;
  /** The answer holds a secret shown only once: no Idempotency-Key replay (it is not stored). */
  oneTimeSecret?: boolean;
  /** The `limit` a 413 names when the body is too large, if not bodyLimit (a file's own limit). */
  payloadLimit?: number;
};
