import { AppError } from '../../errors';

/** Why an action was refused, in words for the person (null: not a refusal of ours). */
export function refusal(error: unknown): string | null {
  if (!(error instanceof AppError)) return null;
  if (error.body.code === 'reauth_required')
    return `This decision must be confirmed in Beckon, with your passkey or a fresh sign-in: ${String(error.body.item_url)}`;
  // Still open: an item collecting approvals refused this person (already answered: 409; its
  // creator: 403), in the operation's own words.
  if ((error.status === 409 && error.body.status === 'open') || error.status === 403)
    return `${String(error.body.error)}: nothing changed.`.replace(/^./, (c) => c.toUpperCase());
  if (error.status === 409)
    return `This item was already decided (${String(error.body.status ?? 'closed')}): nothing changed.`;
  if (error.status === 404) return 'This item no longer exists.';
  if (error.status === 422) {
    const fields = (error.body.fields ?? {}) as Record<string, string>;
    return `That answer was not accepted: ${Object.entries(fields)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`;
  }
  return null;
}
