import { can } from '@beckon/contracts/permissions';
import { memberIdentity } from '../auth/member-identity';
import type { Deps } from '../deps';
import { AppError } from '../errors';
import { turnEmailOff } from '../modules/email/email-settings.service';
import { actOnItem } from '../modules/items/operations/act-on-item';
import { findItem } from '../modules/items/rows/item-queries';
import { itemPageUrl } from './item-mail';
import { type ItemClaim, isExpired, type LinkClaim, verifyLink } from './links';
import { inPlaceChoices } from './mail-choices';

type ItemRef = { title: string; url: string };

/** What a link's page says (http/email-pages.ts renders it). */
export type LinkPage =
  | { kind: 'invalid' }
  | { kind: 'expired' }
  | { kind: 'used'; item: ItemRef }
  | { kind: 'closed'; item: ItemRef; status: string }
  | { kind: 'forbidden'; reason?: string }
  | { kind: 'refused'; item: ItemRef; reason: string }
  | { kind: 'confirm'; item: ItemRef; answer: string; message: string | null }
  | { kind: 'answered'; item: ItemRef; answer: string }
  | { kind: 'counted'; item: ItemRef; answer: string; approved: number; required: number }
  | { kind: 'unsubscribe'; orgName: string }
  | { kind: 'unsubscribed'; orgName: string };

/** What a mail's link says of a decision that needs a fresh verification (`require_reauth`). */
const STEP_UP_REASON =
  'This decision must be confirmed in Beckon, with your passkey or a fresh sign-in: answer it on its page.';

type Checked =
  | { page: LinkPage }
  | { claim: ItemClaim; item: ItemRef; answer: string; values?: unknown; message: string | null };

/** The checks every use of an answer link passes, in order: signature, expiry, single use, item, choice. */
async function checkAnswerLink(deps: Deps, token: string): Promise<Checked> {
  const claim = await verifyLink(deps.mailLinkKey, token);
  if (!claim || (claim.k !== 'answer' && claim.k !== 'ack')) return { page: { kind: 'invalid' } };
  if (isExpired(claim, deps.clock())) return { page: { kind: 'expired' } };
  const row = await findItem(deps.sql, { orgId: claim.o }, claim.i).catch((error: unknown) => {
    if (error instanceof AppError && error.status === 404) return null;
    throw error;
  });
  if (!row) return { page: { kind: 'invalid' } };
  const item = { title: row.title, url: itemPageUrl(deps.env, row.id) };
  const [used] = await deps.sql`select 1 from email_link_uses where nonce = ${claim.n}`;
  if (used) return { page: { kind: 'used', item } };
  if (row.status !== 'open') return { page: { kind: 'closed', item, status: row.status } };
  if (claim.k === 'ack') return { claim, item, answer: 'Acknowledge', message: row.message };
  if (row.require_reauth) return { page: { kind: 'refused', item, reason: STEP_UP_REASON } };
  const choice = inPlaceChoices(row)?.[claim.c];
  if (!choice) return { page: { kind: 'invalid' } };
  return { claim, item, answer: choice.label, values: choice.values, message: row.message };
}

/** GET: what the link would answer, and nothing answered (mail scanners fetch links too). */
export async function previewAnswer(deps: Deps, token: string): Promise<LinkPage> {
  const checked = await checkAnswerLink(deps, token);
  if ('page' in checked) return checked.page;
  return { kind: 'confirm', item: checked.item, answer: checked.answer, message: checked.message };
}

/**
 * POST: answers (or acknowledges) the item as the person the mail was sent to, through the same
 * operation as the API, recording `answered_via: "email"`. The mail's nonce is claimed first, so
 * its links work once; a claim whose answer failed unexpectedly is given back.
 */
export async function confirmAnswer(deps: Deps, token: string): Promise<LinkPage> {
  const checked = await checkAnswerLink(deps, token);
  if ('page' in checked) return checked.page;
  const { claim, item } = checked;
  const identity = await memberIdentity(deps.sql, { orgId: claim.o, userId: claim.u }, 'email_link', claim.n);
  if (!identity || !can(identity.permissions, 'items.write')) return { kind: 'forbidden' };
  const claimed = await deps.sql`
    insert into email_link_uses (nonce, expires_at) values (${claim.n}, ${new Date(claim.e * 1000)})
    on conflict (nonce) do nothing returning nonce`;
  if (claimed.length === 0) return { kind: 'used', item };
  const input =
    claim.k === 'ack'
      ? ({ action: 'ack', via: 'email' } as const)
      : ({ action: 'answer', values: checked.values, via: 'email' } as const);
  let after: Awaited<ReturnType<typeof actOnItem>>;
  try {
    after = await actOnItem(deps, identity, claim.o, claim.i, input);
  } catch (error) {
    // Decided elsewhere meanwhile; or, for an item collecting approvals, this person already
    // answered (409 while it is still open) or may not (the creator, 403).
    if (error instanceof AppError && error.status === 409) {
      const status = String(error.body.status ?? 'closed');
      if (status !== 'open') return { kind: 'closed', item, status };
      return { kind: 'refused', item, reason: String(error.body.error) };
    }
    await deps.sql`delete from email_link_uses where nonce = ${claim.n}`;
    if (error instanceof AppError && error.status === 403) {
      return { kind: 'forbidden', reason: String(error.body.error) };
    }
    throw error;
  }
  // An approval counted while the item still collects others: say so, not "answered".
  if (after.status === 'open' && after.approvals) {
    const { approved, required } = after.approvals;
    return { kind: 'counted', item, answer: checked.answer, approved, required };
  }
  return { kind: 'answered', item, answer: checked.answer };
}

type UnsubscribeClaim = Extract<LinkClaim, { k: 'unsubscribe' }>;

async function unsubscribeClaim(
  deps: Deps,
  token: string,
): Promise<{ page: LinkPage } | { claim: UnsubscribeClaim }> {
  const claim = await verifyLink(deps.mailLinkKey, token);
  if (claim?.k !== 'unsubscribe') return { page: { kind: 'invalid' } };
  if (isExpired(claim, deps.clock())) return { page: { kind: 'expired' } };
  return { claim };
}

async function orgName(deps: Deps, orgId: string): Promise<string> {
  const [row] = await deps.sql<{ name: string }[]>`select name from organizations where id = ${orgId}`;
  return row?.name ?? 'this organization';
}

/** GET of the unsubscribe link: a page with the button (nothing changes). */
export async function previewUnsubscribe(deps: Deps, token: string): Promise<LinkPage> {
  const checked = await unsubscribeClaim(deps, token);
  if ('page' in checked) return checked.page;
  return { kind: 'unsubscribe', orgName: await orgName(deps, checked.claim.o) };
}

/** POST (RFC 8058 one-click, or the page's button): turns the person's mail off there. Idempotent. */
export async function confirmUnsubscribe(deps: Deps, token: string): Promise<LinkPage> {
  const checked = await unsubscribeClaim(deps, token);
  if ('page' in checked) return checked.page;
  await turnEmailOff(deps.sql, checked.claim.o, checked.claim.u);
  return { kind: 'unsubscribed', orgName: await orgName(deps, checked.claim.o) };
}
