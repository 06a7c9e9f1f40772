import type { AppRouter, AuthRouter } from '@beckon/contracts/routers';
import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { errorStatus } from './errors';
import { getToken, setToken } from './session';

export type AppInputs = inferRouterInputs<AppRouter>;
export type AppOutputs = inferRouterOutputs<AppRouter>;
export type AuthOutputs = inferRouterOutputs<AuthRouter>;
export type Item = AppOutputs['items']['get'];
/** One page of a list of items (`items.list`), and the request for it. */
export type ItemList = AppOutputs['items']['list'];
export type ItemListInput = AppInputs['items']['list'];
export type Form = NonNullable<Item['form']>;
export type FormField = Form['fields'][number];

const headers = () => {
  const token = getToken();
  return token ? { authorization: `Bearer ${token}` } : {};
};

/** The resource process (items, agents...) and the authorization process (the account), same origin. */
export const appClient = createTRPCClient<AppRouter>({ links: [httpLink({ url: '/trpc', headers })] });
export const authClient = createTRPCClient<AuthRouter>({
  links: [httpLink({ url: '/auth/trpc', headers })],
});

/**
 * A 401 means the session ended (expired, signed out elsewhere, member removed). A request sent
 * with a token that has since been replaced (organization switch) may fail too, so the current
 * token is checked once more before signing out.
 */
let checking: Promise<void> | null = null;
function onError(error: unknown) {
  if (errorStatus(error) !== 401 || !getToken() || checking) return;
  const token = getToken();
  checking = authClient.accounts.me
    .query()
    .then(
      () => undefined,
      (failure: unknown) => {
        if (errorStatus(failure) === 401 && getToken() === token) setToken(null);
      },
    )
    .finally(() => {
      checking = null;
    });
}

const noRetryStatuses = new Set([400, 401, 403, 404, 409, 410, 422]);

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      retry: (count, error) => count < 2 && !noRetryStatuses.has(errorStatus(error) ?? 0),
    },
  },
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
});

export const trpc = createTRPCOptionsProxy<AppRouter>({ client: appClient, queryClient });
export const authTrpc = createTRPCOptionsProxy<AuthRouter>({ client: authClient, queryClient });
