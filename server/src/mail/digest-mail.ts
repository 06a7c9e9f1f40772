import type { ItemView } from '@beckon/contracts/items/item.contract';
import {
  itemPageUrl,
  type MailDeps,
  type MailRecipient,
  mailFooterText,
  mailHtml,
  unsubscribeHeaders,
} from './item-mail';
import type { Mail } from './mailer';
import { escapeHtml } from './markdown';

export type DigestItem = Pick<ItemView, 'id' | 'title' | 'level' | 'status'>;

/** One mail listing the items a person's digest collected (at most the first `items`), with links. */
export async function digestMail(
  deps: MailDeps,
  to: MailRecipient,
  items: DigestItem[],
  total: number,
  now: Date,
): Promise<Mail> {
  const { env } = deps;
  const unsubscribe = await unsubscribeHeaders(deps, to, now);
  const more = total - items.length;
  const line = (item: DigestItem) => `${item.level === 'info' ? '' : `[${item.level}] `}${item.title}`;
  const subject = `${total} new item${total === 1 ? '' : 's'} in ${to.orgName}`;
  const text = [
    subject,
    '',
    ...items.map((item) => `- ${line(item)}\n  ${itemPageUrl(env, item.id)}`),
    ...(more > 0 ? ['', `and ${more} more: ${env.APP_URL}/`] : []),
    '',
    '-- ',
    mailFooterText(to.orgName, unsubscribe.url),
  ].join('\n');
  const list = items
    .map(
      (item) =>
        `<li style="margin:0 0 8px"><a href="${escapeHtml(itemPageUrl(env, item.id))}" style="color:#1d4ed8">${escapeHtml(line(item))}</a>${
          item.status === 'open' ? '' : ` <span style="color:#6b7280">(${escapeHtml(item.status)})</span>`
        }</li>`,
    )
    .join('');
  const content = `<h1 style="margin:0 0 16px;font-size:20px">${escapeHtml(subject)}</h1>
<ul style="padding-left:20px">${list}</ul>
${more > 0 ? `<p><a href="${escapeHtml(`${env.APP_URL}/`)}" style="color:#1d4ed8">and ${more} more in Beckon</a></p>` : ''}`;
  return {
    to: to.email,
    subject,
    text,
    html: mailHtml(to.orgName, content, unsubscribe.url),
    headers: unsubscribe.headers,
  };
}
