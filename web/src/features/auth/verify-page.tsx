import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { ErrorNotice, Loading } from '../../components/notice';
import { Link } from '../../lib/router';
import { authTrpc } from '../../lib/trpc';
import { AuthLayout } from './auth-layout';
import { startSession } from './sign-in';

/** `/verify?token=…`: the magic link's landing page. The token works once, so it is never retried. */
export function VerifyPage({ token }: { token: string }) {
  const verify = useQuery({
    ...authTrpc.accounts.verifyMagicLink.queryOptions({ token }),
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    enabled: token !== '',
  });
  useEffect(() => {
    if (verify.data) startSession(verify.data.token);
  }, [verify.data]);
  return (
    <AuthLayout title="Signing you in">
      {token === '' ? (
        <ErrorNotice error={new Error('This link has no token.')} />
      ) : verify.isError ? (
        <ErrorNotice error={verify.error} />
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
