import { useMutation, useQuery } from '@tanstack/react-query';
import { Button } from '../../components/button';
import { cardClass } from '../../components/field';
import { ErrorNotice, Notice } from '../../components/notice';
import { authTrpc, trpc } from '../../lib/trpc';

/** What a link token names (its signed part is checked by the server, not here). */
function claim(token: string): { team?: string; slack_user?: string } {
  try {
    const body = token.split('.')[0] ?? '';
    return JSON.parse(atob(body.replace(/-/g, '+').replace(/_/g, '/'))) as {
      team?: string;
      slack_user?: string;
    };
  } catch {
    return {};
  }
}

/**
 * /slack/link?token=: the page Slack's "link your account" message opens. The signed-in person
 * confirms that this Slack user acts as them in the current organization.
 */
export function SlackLinkPage({ token }: { token: string }) {
  const me = useQuery(authTrpc.accounts.me.queryOptions());
  const link = useMutation(trpc.slack.link.mutationOptions());
  const { team, slack_user: slackUser } = claim(token);
  return (
    <div className="mx-auto max-w-xl p-3 sm:p-4">
      <section className={cardClass} aria-labelledby="slack-link-heading">
        <h1 id="slack-link-heading" className="text-xl font-semibold text-gray-900">
          Link your Slack account
        </h1>
        {link.isSuccess ? (
          <Notice tone="success">Linked. Your answers in Slack now count as yours; go back to Slack.</Notice>
        ) : (
          <>
            <p className="text-sm text-gray-900">
              Slack user <strong>{slackUser ?? 'unknown'}</strong> of workspace{' '}
              <strong>{team ?? 'unknown'}</strong> will answer as{' '}
              <strong>{me.data?.user.email ?? 'you'}</strong>. Confirm only if you opened this link from your
              own Slack account.
            </p>
            <Button
              variant="primary"
              disabled={link.isPending || !token}
              onClick={() => link.mutate({ token })}
            >
              Link my account
            </Button>
          </>
        )}
        {link.error ? <ErrorNotice error={link.error} /> : null}
      </section>
    </div>
  );
}
