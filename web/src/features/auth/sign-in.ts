import { navigate } from '../../lib/router';
import { setToken, takeNext } from '../../lib/session';
import { queryClient } from '../../lib/trpc';

/** A session grant from any sign-in (magic link, provider, dev login, invitation, switch). */
export function startSession(token: string, destination: string = takeNext()) {
  queryClient.clear();
  setToken(token);
  navigate(destination, { replace: true });
}
