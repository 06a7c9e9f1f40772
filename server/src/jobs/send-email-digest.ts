import type { JobHelpers } from 'graphile-worker';
import { uuidv7 } from 'uuidv7';
import type { Deps } from '../deps';
import { JOB_TASKS } from '../job-tasks';
import { type DigestItem, digestMail } from '../mail/digest-mail';
import { mailRecipient } from '../mail/recipient';
import { sendAndRecord } from './send-email';

/** A digest names at most this many items; the rest are counted and linked to the inbox. */
export const DIGEST_MAX_ITEMS = 50;

/**
 * `send_email_digest`: one mail with the items a person's digest collected in one organization
 * (one job per person and period: email-entries.ts), oldest first; beyond DIGEST_MAX_ITEMS the
 * rest are counted. A person who left or turned mail off gets nothing and their entries go.
 */
export async function sendEmailDigest(deps: Deps, payload: unknown, helpers: JobHelpers): Promise<void> {
  const { org_id: orgId, user_id: userId } = JOB_TASKS.send_email_digest.parse(payload);
  const { sql } = deps;
  const to = deps.mailer.configured ? await mailRecipient(sql, orgId, userId) : null;
  if (!to) {
    await sql`delete from email_digest_entries where org_id = ${orgId} and user_id = ${userId}`;
    return;
  }
  // The entries are taken in a transaction held while the mail goes out: a failure that another
  // attempt may fix (sendAndRecord throws) puts them back, and entries added meanwhile stay.
  await sql.begin(async (tx) => {
    const taken = await tx<{ item_id: string }[]>`
      delete from email_digest_entries where org_id = ${orgId} and user_id = ${userId} returning item_id`;
    if (taken.length === 0) return;
    const ids = [...new Set(taken.map((entry) => entry.item_id))];
    const items = await tx<DigestItem[]>`
      select id, title, level, status from items where org_id = ${orgId} and id = any(${ids}::uuid[])
       order by id limit ${DIGEST_MAX_ITEMS}`;
    const mail = await digestMail(deps, to, items, ids.length, deps.clock());
    const delivery = { delivery_id: uuidv7(), org_id: orgId, item_id: null, event: 'email.digest' };
    await sendAndRecord(deps, delivery, mail, helpers);
  });
}
