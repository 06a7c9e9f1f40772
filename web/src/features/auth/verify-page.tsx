import { useQuery } from '@tanstack/react-query';
import { ErrorNotice, Loading } from '../../components/notice';
import { Link } from '../../lib/router';
import { authTrpc } from '../../lib/trpc';
import { AuthLayout } from './auth-layout';
import { ConfirmSignIn } from './confirm-sign-in';
import { startedForEmail } from './pending-sign-in';

/**
 * `/verify?token=…`: the magic link's landing page. The token works once, so it is never retried.
 * The session is taken at once when this browser asked for a link for that address; otherwise
 * the person confirms the account first (ConfirmSignIn).
 */
export function VerifyPage({ token }: { token: string }) {
  const verify = useQuery({
    ...authTrpc.accounts.verifyMagicLink.queryOptions({ token }),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    enabled: token !== '',
  });
  return (
    <AuthLayout title="Signing you in">
      {token === '' ? (
        <ErrorNotice error={new Error('This link has no token.')} />
      ) : verify.isError ? (
        <ErrorNotice error={verify.error} />
      ) : verify.data ? (
        <ConfirmSignIn
          token={verify.data.token}
          startedHere={(account) => startedForEmail(account.user.email)}
        />
      ) : (
        <Loading label="Checking your sign-in link…" />
      )}
      {(token === '' || verify.isError) && (
        <Link to="/login" className="text-sm text-indigo-800 underline focus-ring">
          Ask for a new link
        </Link>
      )}
    </AuthLayout>
  );
}
