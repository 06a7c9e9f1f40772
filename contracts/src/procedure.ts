import type { z } from 'zod';
import type { Meta } from './meta';

/**
 * One operation as every side sees it: a query (reads) or a mutation (changes), its REST route
 * and documentation (`meta`), and the zod schemas of its input (none: it takes no input) and output.
 * The server implements it (server/src/trpc/contract.ts); clients are typed from it (routers.ts).
 */
export type ProcedureContract = {
  kind: 'query' | 'mutation';
  meta: Meta;
  input?: z.ZodType;
  output: z.ZodType;
};

type Definition = Omit<ProcedureContract, 'kind'>;

export const query = <D extends Definition>(definition: D) => ({ kind: 'query' as const, ...definition });
export const mutation = <D extends Definition>(definition: D) => ({
  kind: 'mutation' as const,
  ...definition,
});
