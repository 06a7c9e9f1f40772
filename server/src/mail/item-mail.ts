import type { ItemView } from '@beckon/contracts/items/item.contract';
import type { Env } from '../env';
import type { MailReason } from '../modules/email/email-entries';
import { expiresAt, linkUrl, type MailLinkKey, signLink, UNSUBSCRIBE_TTL_HOURS } from './links';
import { inPlaceChoices } from './mail-choices';
import type { Mail } from './mailer';
import { escapeHtml, markdownToHtml } from './markdown';

/** Who a mail goes to, in which organization. */
export type MailRecipient = { orgId: string; orgName: string; userId: string; email: string };
export type MailedItem = Pick<
  ItemView,
  'id' | 'title' | 'message' | 'level' | 'form' | 'status' | 'require_reauth'
>;

/** What building a mail needs: the settings and the key its links are signed with. */
export type MailDeps = { env: Env; mailLinkKey: MailLinkKey };

type Button = { label: string; url: string };

const REASON_PREFIX: Record<MailReason, string> = {
  created: '',
  assigned: 'Assigned to you: ',
  reminded: 'Reminder: ',
  escalated: 'Escalated: ',
};

export const itemPageUrl = (env: Env, itemId: string) => `${env.APP_URL}/items/${itemId}`;

/** The List-Unsubscribe pair (RFC 2369, RFC 8058): one POST turns this organization's mail off. */
export async function unsubscribeHeaders(deps: MailDeps, to: MailRecipient, now: Date) {
  const { env } = deps;
  const token = await signLink(deps.mailLinkKey, {
    k: 'unsubscribe',
    o: to.orgId,
    u: to.userId,
    e: expiresAt(now, UNSUBSCRIBE_TTL_HOURS),
  });
  const url = linkUrl(env, 'unsubscribe', token);
  return {
    url,
    headers: {
      'List-Unsubscribe': `<${url}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'Auto-Submitted': 'auto-generated',
    },
  };
}

/**
 * The mail's buttons: one per choice of a simple form, Acknowledge without a form, else none (and
 * none for a decision that needs a fresh verification: the mail's link to the item page answers it).
 */
async function buttons(deps: MailDeps, item: MailedItem, to: MailRecipient, nonce: string, now: Date) {
  const { env } = deps;
  if (item.status !== 'open') return [];
  const base = {
    o: to.orgId,
    u: to.userId,
    i: item.id,
    n: nonce,
    e: expiresAt(now, env.EMAIL_LINK_TTL_HOURS),
  };
  if (!item.form) {
    return [
      {
        label: 'Acknowledge',
        url: linkUrl(env, 'answer', await signLink(deps.mailLinkKey, { k: 'ack', ...base })),
      },
    ];
  }
  const choices = inPlaceChoices(item) ?? [];
  return Promise.all(
    choices.map(async (choice, c) => ({
      label: choice.label,
      url: linkUrl(env, 'answer', await signLink(deps.mailLinkKey, { k: 'answer', ...base, c })),
    })),
  );
}

const buttonHtml = (button: Button, primary: boolean) =>
  `<a href="${escapeHtml(button.url)}" style="display:inline-block;margin:0 8px 8px 0;padding:10px 18px;border-radius:6px;text-decoration:none;font-weight:600;${
    primary ? 'background:#1d4ed8;color:#ffffff' : 'background:#e5e7eb;color:#111827'
  }">${escapeHtml(button.label)}</a>`;

/** The page around a mail's content: the organization, then the footer that says why it came. */
export function mailHtml(orgName: string, content: string, unsubscribeUrl: string): string {
  return `<!doctype html><html><body style="margin:0;padding:24px;background:#f9fafb;font-family:system-ui,-apple-system,Segoe UI,sans-serif;color:#111827">
<div style="max-width:600px;margin:0 auto;background:#ffffff;border:1px solid #e5e7eb;border-radius:8px;padding:24px">
<p style="margin:0 0 12px;color:#6b7280;font-size:13px">${escapeHtml(orgName)}</p>
${content}
</div>
<p style="max-width:600px;margin:12px auto 0;color:#6b7280;font-size:12px">You get these mails because email is on in your Beckon notification settings for ${escapeHtml(orgName)}. <a href="${escapeHtml(unsubscribeUrl)}" style="color:#6b7280">Turn them off</a>.</p>
</body></html>`;
}

export const mailFooterText = (orgName: string, unsubscribeUrl: string) =>
  `You get these mails because email is on in your Beckon notification settings for ${orgName}.\nTurn them off: ${unsubscribeUrl}\n`;

/**
 * The mail telling a person about an item: its title and message (Markdown rendered safely), a
 * button per answer when the form is simple enough (each a signed link to a confirmation page),
 * a link to the item page, and the unsubscribe link in the headers and the footer.
 */
export async function itemMail(
  deps: MailDeps,
  item: MailedItem,
  to: MailRecipient,
  nonce: string,
  now: Date,
  reason: MailReason = 'created',
): Promise<Mail> {
  const { env } = deps;
  const unsubscribe = await unsubscribeHeaders(deps, to, now);
  const actions = await buttons(deps, item, to, nonce, now);
  const page = itemPageUrl(env, item.id);
  const level = item.level === 'info' ? '' : `[${item.level}] `;
  const text = [
    item.title,
    '',
    ...(item.message ? [item.message, ''] : []),
    ...actions.map((button) => `${button.label}: ${button.url}`),
    ...(actions.length > 0 ? [''] : []),
    `Open in Beckon: ${page}`,
    '',
    '-- ',
    mailFooterText(to.orgName, unsubscribe.url),
  ].join('\n');
  const content = `<h1 style="margin:0 0 16px;font-size:20px">${escapeHtml(item.title)}</h1>
${item.message ? `<div style="line-height:1.5">${markdownToHtml(item.message)}</div>` : ''}
${actions.length > 0 ? `<div style="margin:20px 0 8px">${actions.map((b, i) => buttonHtml(b, i === 0)).join('')}</div><p style="margin:0;color:#6b7280;font-size:12px">Each button opens a page where you confirm the answer.</p>` : ''}
<p style="margin:20px 0 0"><a href="${escapeHtml(page)}" style="color:#1d4ed8">Open in Beckon</a></p>`;
  return {
    to: to.email,
    subject: `${REASON_PREFIX[reason]}${level}${item.title}`,
    text,
    html: mailHtml(to.orgName, content, unsubscribe.url),
    headers: unsubscribe.headers,
  };
}
