import { useEffect, useState } from 'react';
import { ErrorNotice } from '../../components/notice';
import { Link } from '../../lib/router';
import { AuthLayout } from './auth-layout';
import { ConfirmSignIn } from './confirm-sign-in';
import { startedWithNonce } from './pending-sign-in';

type Landed = { token: string; clientState: string | null } | { error: string };

/**
 * `/auth/callback#token=…`: where external sign-in lands (the token is in the fragment, never
 * sent). Taken at once when the fragment's client_state is the nonce this browser started the
 * flow with; any other token (a link from someone else) needs the person's confirmation.
 */
export function CallbackPage() {
  const [landed] = useState<Landed>(() => {
    const fragment = new URLSearchParams(window.location.hash.slice(1));
    const token = fragment.get('token');
    return token
      ? { token, clientState: fragment.get('client_state') }
      : { error: fragment.get('error') ?? 'sign-in did not complete' };
  });
  // The token leaves the address bar (and the history) at once.
  useEffect(() => {
    window.history.replaceState(window.history.state, '', window.location.pathname);
  }, []);
  return (
    <AuthLayout title="Signing you in">
      {'error' in landed ? (
        <>
          <ErrorNotice error={new Error(landed.error)} />
          <Link to="/login" className="text-sm text-indigo-800 underline focus-ring">
            Back to sign-in
          </Link>
        </>
      ) : (
        <ConfirmSignIn token={landed.token} startedHere={() => startedWithNonce(landed.clientState)} />
      )}
    </AuthLayout>
  );
}
