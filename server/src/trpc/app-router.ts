import { identityRouter } from '../modules/identity/router';
import { itemsRouter } from '../modules/items/router';
import { createCallerFactory, router } from './init';

/** Every procedure of the resource process: REST (/api), tRPC (/trpc) and MCP call these. */
export const appRouter = router({
  identity: identityRouter,
  items: itemsRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
