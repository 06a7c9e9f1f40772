import { useEffect, useState } from 'react';
import { ErrorNotice, Loading } from '../../components/notice';
import { Link } from '../../lib/router';
import { AuthLayout } from './auth-layout';
import { startSession } from './sign-in';

/** `/auth/callback#token=…`: where external sign-in lands (the token is in the fragment, never sent). */
export function CallbackPage() {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const fragment = new URLSearchParams(window.location.hash.slice(1));
    const token = fragment.get('token');
    if (token) startSession(token);
    else setError(fragment.get('error') ?? 'sign-in did not complete');
  }, []);
  return (
    <AuthLayout title="Signing you in">
      {error ? (
        <>
          <ErrorNotice error={new Error(error)} />
          <Link to="/login" className="text-sm text-indigo-800 underline focus-ring">
            Back to sign-in
          </Link>
        </>
      ) : (
        <Loading />
      )}
    </AuthLayout>
  );
}
