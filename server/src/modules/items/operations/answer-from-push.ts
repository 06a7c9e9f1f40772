import { can } from '@beckon/contracts/permissions';
import type { PushAnswerInput, PushAnswerView } from '@beckon/contracts/push/push.contract';
import { memberIdentity } from '../../../auth/member-identity';
import { reauthRequired } from '../../../auth/verification';
import type { Deps } from '../../../deps';
import { AppError } from '../../../errors';
import { itemPageUrl } from '../../../mail/item-mail';
import { isExpired, type LinkClaim, verifyLink } from '../../../mail/links';
import { inPlaceChoices } from '../../../mail/mail-choices';
import { findItem } from '../rows/item-queries';
import { actOnItem } from './act-on-item';

type PushClaim = Extract<LinkClaim, { k: 'push' }>;

/**
 * Answers an item from a notification's action, as the person the push was sent to, through the
 * same operation as the API (`answered_via: "push"`). The token's nonce is claimed first (the
 * single-use table of mail links), and given back when the answer fails for a reason that is not
 * the item's (a 403).
 */
export async function answerFromPush(deps: Deps, input: PushAnswerInput): Promise<PushAnswerView> {
  const verified = await verifyLink(deps.mailLinkKey, input.token);
  if (verified?.k !== 'push') throw AppError.invalid({ token: 'not a notification token of this service' });
  const claim: PushClaim = verified;
  if (isExpired(claim, deps.clock()))
    throw AppError.gone('notification_expired', 'this notification can no longer answer');
  const item = await findItem(deps.sql, { orgId: claim.o }, claim.i);
  // A decision that needs a fresh verification is answered on its page, not from a notification.
  if (item.require_reauth) throw reauthRequired(item.require_reauth, itemPageUrl(deps.env, item.id));
  const choice = inPlaceChoices(item)?.[input.choice];
  if (!choice) throw AppError.invalid({ choice: 'not one of the notification’s actions' });
  const identity = await memberIdentity(deps.sql, { orgId: claim.o, userId: claim.u }, 'push_link', claim.n);
  if (!identity || !can(identity.permissions, 'items.write')) {
    throw AppError.forbidden(
      'recipient_may_not_answer',
      'the person this notification was sent to may no longer answer',
    );
  }
  const claimed = await deps.sql`
    insert into email_link_uses (nonce, expires_at) values (${claim.n}, ${new Date(claim.e * 1000)})
    on conflict (nonce) do nothing returning nonce`;
  if (claimed.length === 0)
    throw AppError.conflict('notification_used', 'this notification has already answered');
  try {
    const after = await actOnItem(deps, identity, claim.o, claim.i, {
      action: 'answer',
      values: choice.values,
      via: 'push',
    });
    return { item_id: after.id, status: after.status, answer: choice.label };
  } catch (error) {
    if (!(error instanceof AppError && error.status === 409)) {
      await deps.sql`delete from email_link_uses where nonce = ${claim.n}`;
    }
    throw error;
  }
}
