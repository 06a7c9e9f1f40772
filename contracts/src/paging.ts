import { z } from 'zod';

/** A list's page size: default 50, and a larger one is capped at 200 (not refused). */
export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;
export const ZPageLimit = z.coerce
  .number()
  .int()
  .min(1)
  .default(DEFAULT_PAGE)
  .transform((n) => Math.min(n, MAX_PAGE))
  .describe(`Page size, default ${DEFAULT_PAGE}, capped at ${MAX_PAGE}`);
