import type { Queryable } from '@beckon/db';
import { JOB_MAX_ATTEMPTS } from '../../job-queue';
import { LEVEL_ORDER, mayReadItems, type PushedItem, preferencesAllow } from '../push/push-entries';

/** Why an item reaches a person: created, assigned, reminded, escalated. */
export const MAIL_REASONS = ['created', 'assigned', 'reminded', 'escalated'] as const;
export type MailReason = (typeof MAIL_REASONS)[number];

/** Who an item reaches: everyone who may read it but its creator, or the people named. */
export type MailRecipients = { except: string | null } | { only: string[] };

/**
 * The item's mails, as CTEs of the caller's statement (they commit with it; the statement must
 * read `select` for the jobs to be added): for each recipient who is a member of the item's
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
) {
  const who =
    'only' in recipients
      ? sql`m.user_id = any(${recipients.only}::uuid[])`
      : sql`m.user_id is distinct from ${recipients.except}::uuid`;
  const digested = sql`(e.digest <> 'off' and array_position(${LEVEL_ORDER}::text[], ${item.level})
                        < array_position(${LEVEL_ORDER}::text[], e.digest_below))`;
  const ctes = sql`email_people as (
    select s.user_id, s.digest, s.digest_below
      from email_settings s
      join memberships m on m.org_id = s.org_id and m.user_id = s.user_id
      join roles r on r.id = m.role_id
      left join notification_preferences p on p.user_id = s.user_id
     where s.org_id = ${item.org_id} and s.enabled and ${mayReadItems(sql)} and ${who}
       and ${preferencesAllow(sql, item, now)}
  ), email_jobs as (
    select graphile_worker.add_job(
             identifier => 'send_email', max_attempts => ${JOB_MAX_ATTEMPTS},
             payload => json_build_object('delivery_id', gen_random_uuid(), 'org_id', ${item.org_id}::uuid,
                                          'user_id', e.user_id, 'item_id', ${item.id}::uuid, 'reason', ${reason}::text))
      from email_people e where not ${digested}
  ), email_digest as (
    insert into email_digest_entries (org_id, user_id, item_id)
    select ${item.org_id}, e.user_id, ${item.id} from email_people e where ${digested}
    returning user_id
  ), email_digest_jobs as (
    select graphile_worker.add_job(
             identifier => 'send_email_digest', max_attempts => ${JOB_MAX_ATTEMPTS},
             payload => json_build_object('org_id', ${item.org_id}::uuid, 'user_id', e.user_id),
             run_at => ${now}::timestamptz
                       + case e.digest when 'hourly' then interval '1 hour' else interval '1 day' end,
             job_key => 'email_digest:' || ${item.org_id}::text || ':' || e.user_id::text,
             job_key_mode => 'preserve_run_at')
      from email_people e where ${digested}
  )`;
  const select = sql`(select count(*) from email_jobs), (select count(*) from email_digest_jobs)`;
  return { ctes, select };
}
