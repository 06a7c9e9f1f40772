/**
 * The types a published client needs, and nothing else: the SDK imports these (type-only), and
 * its build writes them out as plain types (sdk/scripts/expand-client-types.mjs), so its
 * declarations depend on no workspace package and not on zod.
 */

export type { ErrorBody, ErrorCode } from './errors';
export type { AppRouter } from './routers';
