import type { Deps } from '../../deps';
import { expiresAt, signLink } from '../../mail/links';

/** A notification's answer token lasts until the item's deadline, and never longer than this. */
const TOKEN_TTL_HOURS = 7 * 24;

/**
 * The token a push entry carries for its person: signed like a mail's links, its nonce the push
 * entry's id, so it answers once whichever action is pressed.
 */
export function pushAnswerToken(
  deps: Deps,
  entry: { id: string; org_id: string; user_id: string; item_id: string; deadline_at: Date | null },
): Promise<string> {
  const latest = expiresAt(deps.clock(), TOKEN_TTL_HOURS);
  const deadline = entry.deadline_at ? Math.floor(entry.deadline_at.getTime() / 1000) : latest;
  return signLink(deps.env, {
    k: 'push',
    o: entry.org_id,
    u: entry.user_id,
    i: entry.item_id,
    n: entry.id,
    e: Math.min(deadline, latest),
  });
}
