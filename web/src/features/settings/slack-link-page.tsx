import { useMutation, useQuery } from '@tanstack/react-query';
import { Button } from '../../components/button';
import { cardClass } from '../../components/field';
import { ErrorNotice, Notice } from '../../components/notice';
import { authTrpc, trpc } from '../../lib/trpc';

const LINK_ERRORS: Record<string, string> = {
  invalid_state: 'The link took too long. Try again.',
  other_browser:
    'The link was started in another browser: start it here, in the browser you sign in to Slack from.',
  other_workspace: "That Slack account is not in this organization's Slack workspace.",
  invalid_code: 'Slack did not confirm the sign-in. Try again.',
  forbidden: 'You are no longer a member of this organization.',
  access_denied: 'The sign-in was canceled in Slack.',
};

/**
 * /slack/link: the page Slack's "link your account" message opens, and where Sign in with Slack
 * comes back (?linked=1 or ?error=). The signed-in person signs in to Slack in this browser; the
 * Slack account they sign in with then answers as them in the current organization.
 */
export function SlackLinkPage({ outcome }: { outcome: { linked: boolean; error: string | null } }) {
  const me = useQuery(authTrpc.accounts.me.queryOptions());
  const start = useMutation(
    trpc.slack.link.mutationOptions({ onSuccess: ({ url }) => window.location.assign(url) }),
  );
  return (
    <div className="mx-auto max-w-xl p-3 sm:p-4">
      <section className={cardClass} aria-labelledby="slack-link-heading">
        <h1 id="slack-link-heading" className="text-xl font-semibold text-gray-900">
          Link your Slack account
        </h1>
        {outcome.linked ? (
          <Notice tone="success">Linked. Your answers in Slack now count as yours; go back to Slack.</Notice>
        ) : (
          <>
            {outcome.error ? (
              <ErrorNotice error={new Error(LINK_ERRORS[outcome.error] ?? `Slack said: ${outcome.error}`)} />
            ) : null}
            <p className="text-sm text-gray-900">
              Sign in to Slack with your own account: your clicks in Slack will then answer as{' '}
              <strong>{me.data?.user.email ?? 'you'}</strong> in this organization.
            </p>
            <Button variant="primary" disabled={start.isPending} onClick={() => start.mutate()}>
              Sign in with Slack
            </Button>
          </>
        )}
        {start.error ? <ErrorNotice error={start.error} /> : null}
      </section>
    </div>
  );
}
