import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Button } from '../../components/button';
import { ErrorNotice, Loading } from '../../components/notice';
import { navigate } from '../../lib/router';
import type { AuthOutputs } from '../../lib/trpc';
import { forgetSignIn } from './pending-sign-in';
import { startSession } from './sign-in';

type Account = AuthOutputs['accounts']['me'];

/** GET /auth/me with the new session's token (not yet this browser's session). */
async function accountOf(token: string): Promise<Account> {
  const response = await fetch('/auth/me', { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new Error('This sign-in is no longer valid. Ask for a new link.');
  return (await response.json()) as Account;
}

/**
 * Takes a session that arrived by link: at once when this browser started that sign-in
 * (`startedHere`), otherwise only after the person confirms the account it signs into, so a
 * link someone else sent cannot quietly sign this browser into their account.
 */
export function ConfirmSignIn({
  token,
  startedHere,
}: {
  token: string;
  startedHere: (account: Account) => boolean;
}) {
  const account = useQuery({
    queryKey: ['sign-in-account', token],
    queryFn: () => accountOf(token),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const automatic = account.data ? startedHere(account.data) : false;
  useEffect(() => {
    if (!automatic) return;
    forgetSignIn();
    startSession(token);
  }, [automatic, token]);

  if (account.isError) return <ErrorNotice error={account.error} />;
  if (!account.data || automatic) return <Loading label="Signing you in…" />;
  const { user, org } = account.data;
  const cancel = () => {
    // The session was made for this link: end it rather than leave it unused.
    void fetch('/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    navigate('/login', { replace: true });
  };
  return (
    <div className="space-y-3">
      <p className="text-sm text-gray-800">
        This sign-in was not started in this browser. Continue only if you asked for it: you will be signed in
        as <strong>{user.email}</strong> ({org.name}).
      </p>
      <Button
        variant="primary"
        className="w-full"
        onClick={() => {
          forgetSignIn();
          startSession(token);
        }}
      >
        Continue as {user.email}
      </Button>
      <Button variant="ghost" className="w-full" onClick={cancel}>
        Cancel
      </Button>
    </div>
  );
}
