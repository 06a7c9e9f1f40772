import { useMutation } from '@tanstack/react-query';
import { Button } from '../../components/button';
import { errorBody } from '../../lib/errors';
import { navigate } from '../../lib/router';
import { rememberNext, setToken } from '../../lib/session';
import { authClient, type Item, queryClient } from '../../lib/trpc';
import { confirmWithPasskey } from './passkey-ceremonies';

/**
 * Sends an answer of an item that may need a fresh verification (`require_reauth`): when the
 * server refuses it for want of one, the person confirms with a passkey and it is sent again.
 */
export async function withStepUp<T>(item: Item, send: () => Promise<T>): Promise<T> {
  if (!item.require_reauth) return send();
  try {
    return await send();
  } catch (error) {
    if (errorBody(error)?.code !== 'reauth_required') throw error;
    await confirmWithPasskey();
    return send();
  }
}

/** Signs out and back in (any method), coming back to the item: the fresh sign-in verifies. */
function useSignInAgain(itemId: string) {
  return useMutation({
    mutationFn: () => authClient.accounts.logout.mutate().catch(() => null),
    onSettled: () => {
      rememberNext(`/items/${itemId}`);
      queryClient.clear();
      setToken(null);
      navigate('/login', { replace: true });
    },
  });
}

/** What the answer form says above its button about an item whose decision needs a step-up. */
export function StepUpNotice({ item }: { item: Item }) {
  const again = useSignInAgain(item.id);
  const rule = item.require_reauth;
  if (!rule) return null;
  const minutes = `${rule.within_minutes} minute${rule.within_minutes === 1 ? '' : 's'}`;
  return (
    <div
      role="note"
      aria-label="Verification required"
      className="space-y-2 rounded-md border border-amber-400 bg-amber-50 p-3 text-sm text-amber-950"
    >
      <p>
        {rule.method === 'passkey'
          ? `This decision needs your passkey (used within the last ${minutes}): submitting asks for it.`
          : `This decision needs a fresh verification (within the last ${minutes}): submitting asks for your passkey, or sign in again.`}
      </p>
      {rule.method === 'any' && (
        <Button size="sm" onClick={() => again.mutate()} disabled={again.isPending}>
          Sign in again
        </Button>
      )}
    </div>
  );
}
