import type { Queryable } from '@beckon/db';
import { addJobFor } from '../../job-queue';
import { MAIL_REASONS } from '../../job-tasks';
import { type Part, part } from '../../statement-parts';
import { LEVEL_ORDER, mayReadItems, type PushedItem, preferencesAllow } from '../push/push-entries';

export { MAIL_REASONS };
export type MailReason = (typeof MAIL_REASONS)[number];

/** Who an item reaches: everyone who may read it but its creator, or the people named. */
export type MailRecipients = { except: string | null } | { only: string[] };

/**
 * The item's mails, as parts of the caller's statement (statement-parts.ts; they commit with
 * it): for each recipient who is a member of the item's
 * organization allowed to read items, with mail on there, whose notification preferences let the
 * item through (push's own filter: mutes, minimum level, quiet hours), either a `send_email` job
 * at once or, for an item below their digest level, an entry of their next digest and its
 * `send_email_digest` job (one per person and period: the job key keeps the first run time).
 */
export function emailEntries(
  sql: Queryable,
  item: PushedItem,
  recipients: MailRecipients,
  now: Date,
  reason: MailReason,
): Part[] {
  const who =
    'only' in recipients
      ? sql`m.user_id = any(${recipients.only}::uuid[])`
      : sql`m.user_id is distinct from ${recipients.except}::uuid`;
  const digested = sql`(e.digest <> 'off' and array_position(${LEVEL_ORDER}::text[], ${item.level})
                        < array_position(${LEVEL_ORDER}::text[], e.digest_below))`;
  const people = sql`
    select s.user_id, s.digest, s.digest_below
      from email_settings s
      join memberships m on m.org_id = s.org_id and m.user_id = s.user_id
      join roles r on r.id = m.role_id
      left join notification_preferences p on p.user_id = s.user_id
     where s.org_id = ${item.org_id} and s.enabled and ${mayReadItems(sql)} and ${who}
       and ${preferencesAllow(sql, item, now)}`;
  const jobs = sql`
    select ${addJobFor(sql, 'send_email', {
      delivery_id: sql`gen_random_uuid()`,
      org_id: sql`${item.org_id}::uuid`,
      user_id: sql`e.user_id`,
      item_id: sql`${item.id}::uuid`,
      reason: sql`${reason}::text`,
    })}
      from email_people e where not ${digested}`;
  const digest = sql`
    insert into email_digest_entries (org_id, user_id, item_id)
    select ${item.org_id}, e.user_id, ${item.id} from email_people e where ${digested}
    returning user_id`;
  const digestJobs = sql`
    select ${addJobFor(
      sql,
      'send_email_digest',
      { org_id: sql`${item.org_id}::uuid`, user_id: sql`e.user_id` },
      {
        runAt: sql`${now}::timestamptz
                   + case e.digest when 'hourly' then interval '1 hour' else interval '1 day' end`,
        key: sql`'email_digest:' || ${item.org_id}::text || ':' || e.user_id::text`,
        keyMode: 'preserve_run_at',
      },
    )}
      from email_people e where ${digested}`;
  return [
    part('email_people', people),
    part('email_jobs', jobs),
    part('email_digest', digest),
    part('email_digest_jobs', digestJobs),
  ];
}
