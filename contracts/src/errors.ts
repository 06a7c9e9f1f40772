import type { TRPC_ERROR_CODE_KEY, TRPC_ERROR_CODE_NUMBER } from '@trpc/server';

/** An error answer's body (docs/api.md): `error`, plus fields that depend on the status. */
export type ErrorBody = { error: string } & Record<string, unknown>;

/** A tRPC error as clients receive it: the REST status and body under `data`. */
export type ErrorShape = {
  code: TRPC_ERROR_CODE_NUMBER;
  message: string;
  data: { code: TRPC_ERROR_CODE_KEY; httpStatus: number; path?: string; body: ErrorBody };
};
