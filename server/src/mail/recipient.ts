import type { Queryable } from '@beckon/db';
import { mayReadItems } from '../modules/push/push-entries';
import type { MailRecipient } from './item-mail';

/**
 * The person a mail of an organization goes to, read when it is sent: only while they are still
 * a member who may read items and still have mail on there (else null: nothing is sent).
 */
export async function mailRecipient(
  sql: Queryable,
  orgId: string,
  userId: string,
): Promise<MailRecipient | null> {
  const [row] = await sql<{ email: string; org_name: string }[]>`
    select u.email, o.name as org_name
      from email_settings s
      join memberships m on m.org_id = s.org_id and m.user_id = s.user_id
      join roles r on r.id = m.role_id
      join users u on u.id = s.user_id
      join organizations o on o.id = s.org_id
     where s.org_id = ${orgId} and s.user_id = ${userId} and s.enabled and ${mayReadItems(sql)}`;
  return row ? { orgId, orgName: row.org_name, userId, email: row.email } : null;
}
