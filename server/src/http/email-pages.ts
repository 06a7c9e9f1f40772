import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps';
import {
  confirmAnswer,
  confirmUnsubscribe,
  type LinkPage,
  previewAnswer,
  previewUnsubscribe,
} from '../mail/answer-link';
import { escapeHtml, markdownToHtml } from '../mail/markdown';

/** Pages hold a link's token in their address: never cached, indexed, framed or sent on as a referrer. */
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex, nofollow',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

const STATUS: Record<LinkPage['kind'], number> = {
  invalid: 400,
  expired: 410,
  used: 410,
  closed: 409,
  forbidden: 403,
  refused: 409,
  confirm: 200,
  answered: 200,
  counted: 200,
  unsubscribe: 200,
  unsubscribed: 200,
};

const open = (item: { url: string }) =>
  `<p><a href="${escapeHtml(item.url)}">Open the item in Beckon</a></p>`;
const button = (token: string, label: string) =>
  `<form method="post" action="?token=${escapeHtml(encodeURIComponent(token))}"><button type="submit">${escapeHtml(label)}</button></form>`;

/** An API error message as a sentence of a page ("you have already answered this item" → "You have…."). */
const sentence = (text: string) =>
  `${text.charAt(0).toUpperCase()}${text.slice(1)}${text.endsWith('.') ? '' : '.'}`;

function body(page: LinkPage, token: string): { title: string; html: string } {
  switch (page.kind) {
    case 'invalid':
      return {
        title: 'This link does not work',
        html: '<p>The link is not valid. Open Beckon to answer instead.</p>',
      };
    case 'expired':
      return {
        title: 'This link has expired',
        html: '<p>Links in mails work for a limited time. Open Beckon to answer instead.</p>',
      };
    case 'used':
      return {
        title: 'This link was already used',
        html: `<p>An answer was already given from this mail.</p>${open(page.item)}`,
      };
    case 'closed':
      return {
        title: 'Already decided',
        html: `<p>“${escapeHtml(page.item.title)}” is ${escapeHtml(page.status)}: nothing more to answer.</p>${open(page.item)}`,
      };
    case 'forbidden':
      return {
        title: 'You cannot answer this',
        html: `<p>${page.reason ? `${escapeHtml(sentence(page.reason))}` : 'You are no longer allowed to answer items of this organization.'}</p>`,
      };
    case 'refused':
      return {
        title: 'Not answered',
        html: `<p>${escapeHtml(sentence(page.reason))}</p>${open(page.item)}`,
      };
    case 'confirm':
      return {
        title: page.item.title,
        html: `${page.message ? `<div>${markdownToHtml(page.message)}</div>` : ''}<p>Your answer: <strong>${escapeHtml(page.answer)}</strong></p>${button(token, `Confirm: ${page.answer}`)}${open(page.item)}`,
      };
    case 'answered':
      return {
        title: 'Answer recorded',
        html: `<p>You answered <strong>${escapeHtml(page.answer)}</strong> to “${escapeHtml(page.item.title)}”.</p>${open(page.item)}`,
      };
    case 'counted':
      return {
        title: 'Answer recorded',
        html: `<p>You answered <strong>${escapeHtml(page.answer)}</strong> to “${escapeHtml(page.item.title)}”. It needs ${page.required} approvals: ${page.approved} so far.</p>${open(page.item)}`,
      };
    case 'unsubscribe':
      return {
        title: 'Stop these mails?',
        html: `<p>Turn off mail from ${escapeHtml(page.orgName)}. You can turn it on again in your notification settings.</p>${button(token, 'Turn off mail')}`,
      };
    case 'unsubscribed':
      return {
        title: 'Mail turned off',
        html: `<p>You will get no more mail from ${escapeHtml(page.orgName)}. Turn it on again in your notification settings.</p>`,
      };
  }
}

function render(reply: FastifyReply, page: LinkPage, token: string) {
  const { title, html } = body(page, token);
  return reply
    .code(STATUS[page.kind])
    .headers(HEADERS)
    .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${escapeHtml(title)} · Beckon</title>
<style>body{font-family:system-ui,-apple-system,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#111827}
button{font:inherit;font-weight:600;padding:.6rem 1.2rem;border:0;border-radius:6px;background:#1d4ed8;color:#fff;cursor:pointer}
a{color:#1d4ed8}</style></head>
<body><h1>${escapeHtml(title)}</h1>${html}</body></html>`);
}

const tokenOf = (request: FastifyRequest) => {
  const { token } = request.query as { token?: unknown };
  return typeof token === 'string' ? token : '';
};

type PageOf = (deps: Deps, token: string) => Promise<LinkPage>;

/**
 * The pages the links of item mails open (mail/answer-link.ts): a GET only shows what the link
 * would do, with a button; only the POST acts (mail scanners that fetch links answer nothing).
 * The unsubscribe POST is also RFC 8058's one-click (`List-Unsubscribe=One-Click`).
 */
export async function registerEmailPages(app: FastifyInstance, deps: Deps): Promise<void> {
  const page = (of: PageOf) => async (request: FastifyRequest, reply: FastifyReply) => {
    const token = tokenOf(request);
    return render(reply, token ? await of(deps, token) : { kind: 'invalid' }, token);
  };
  // The form parsers live in this plugin only (the body says nothing the token does not).
  await app.register(async (forms) => {
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data']) {
      forms.addContentTypeParser(type, { parseAs: 'string', bodyLimit: 4096 }, (_request, _body, done) =>
        done(null, {}),
      );
    }
    forms.get('/api/email/answer', page(previewAnswer));
    forms.post('/api/email/answer', page(confirmAnswer));
    forms.get('/api/email/unsubscribe', page(previewUnsubscribe));
    forms.post('/api/email/unsubscribe', page(confirmUnsubscribe));
  });
}
