import { AppError } from '../errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Cursors of lists ordered newest first by a UUID v7 id (newest is greatest): base64url of the
 * last id shown. A cursor that does not decode to an id is a 400 on `cursor`. (Page sizes:
 * contracts/src/paging.ts.)
 */
export const encodeIdCursor = (id: string) => Buffer.from(id).toString('base64url');

export function decodeIdCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString();
  if (!UUID.test(id)) throw AppError.invalid({ cursor: 'invalid cursor' });
  return id;
}

/**
 * The first ids whose sizes add up to at most `budget` bytes (LIST_PAGE_MAX_BYTES), always the
 * first one: a list reads its candidates' sizes, then only these rows, and ends its page early
 * (with its cursor) rather than reading a page of large rows into memory whole.
 */
export function withinBudget(sizes: readonly { id: string; bytes: number }[], budget: number): string[] {
  const ids: string[] = [];
  let total = 0;
  for (const { id, bytes } of sizes) {
    total += Number(bytes);
    if (ids.length > 0 && total > budget) break;
    ids.push(id);
  }
  return ids;
}
