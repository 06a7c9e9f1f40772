import { useMutation, useQuery } from '@tanstack/react-query';
import { Button } from '../../components/button';
import { ErrorNotice, Loading } from '../../components/notice';
import { navigate } from '../../lib/router';
import { rememberNext, useToken } from '../../lib/session';
import { formatDateTime } from '../../lib/time';
import { authTrpc } from '../../lib/trpc';
import { AuthLayout } from './auth-layout';
import { startSession } from './sign-in';

/** `/invite/:code`: what the invitation offers, then accept it (signing in first if needed). */
export function InvitePage({ code }: { code: string }) {
  const token = useToken();
  const preview = useQuery({ ...authTrpc.accounts.previewInvitation.queryOptions({ code }), retry: false });
  const accept = useMutation(
    authTrpc.accounts.acceptInvitation.mutationOptions({
      onSuccess: (grant) => startSession(grant.token, '/'),
    }),
  );
  return (
    <AuthLayout title="Invitation">
      {preview.isPending ? (
        <Loading />
      ) : preview.isError ? (
        <ErrorNotice error={preview.error} />
      ) : (
        <div className="space-y-4">
          <p className="text-gray-900">
            You are invited to join <strong>{preview.data.org.name}</strong> as{' '}
            <strong>{preview.data.role.name}</strong>.
          </p>
          {preview.data.role.description && (
            <p className="text-sm text-gray-700">{preview.data.role.description}</p>
          )}
          <p className="text-xs text-gray-700">Valid until {formatDateTime(preview.data.expires_at)}.</p>
          {accept.error ? <ErrorNotice error={accept.error} /> : null}
          {token ? (
            <Button
              variant="primary"
              className="w-full"
              disabled={accept.isPending}
              onClick={() => accept.mutate({ code })}
            >
              Accept the invitation
            </Button>
          ) : (
            <Button
              variant="primary"
              className="w-full"
              onClick={() => {
                rememberNext(`/invite/${encodeURIComponent(code)}`);
                navigate('/login');
              }}
            >
              Sign in to accept
            </Button>
          )}
        </div>
      )}
    </AuthLayout>
  );
}
