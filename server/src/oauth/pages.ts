import { SCOPE_DESCRIPTIONS } from './scopes';

/** The small server-rendered pages of the authorization flow: no scripts, no external assets. */

export const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/**
 * Where a page's forms may lead: this server, and the redirect URI of the authorization request
 * it belongs to. Browsers apply `form-action` to every redirect a submission follows, and the
 * sign-in and consent forms end, through this server's redirects, at the client's redirect URI.
 * An http(s) URI counts by its origin; another scheme (an app's own, `com.example.app:/cb`) by its
 * scheme. Anything else adds nothing.
 */
export function formTargets(redirectUri: unknown): string {
  const url = typeof redirectUri === 'string' ? URL.parse(redirectUri) : null;
  if (!url) return "'self'";
  if (url.protocol === 'http:' || url.protocol === 'https:') return `'self' ${url.origin}`;
  return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? `'self' ${url.protocol}` : "'self'";
}

/**
 * Framing refused (clickjacking of the consent buttons), nothing loaded from elsewhere, forms
 * posted only here (and on to the request's redirect URI).
 */
export function pageSecurityHeaders(redirectUri?: unknown) {
  return {
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action ${formTargets(redirectUri)}; frame-ancestors 'none'`,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

/** The headers of a page that belongs to no authorization request (errors, notices). */
export const PAGE_SECURITY_HEADERS = pageSecurityHeaders();

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f5f7;color:#1d1d1f}
main{max-width:26rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:.75rem;box-shadow:0 1px 3px #0002}
h1{font-size:1.4rem;margin-top:0}label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input{box-sizing:border-box;width:100%;padding:.6rem;font:inherit;border:1px solid #888;border-radius:.4rem}
button,.button{display:inline-block;margin-top:1rem;padding:.6rem 1.2rem;font:inherit;border-radius:.4rem;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;text-decoration:none;cursor:pointer}
button.secondary{background:#fff;color:#1d4ed8}:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.note{color:#555;font-size:.9rem}.error{color:#b91c1c}hr{border:0;border-top:1px solid #ddd;margin:1.5rem 0}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Beckon</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export type ExternalProviderLink = { name: string; href: string };

export type SignInPage = {
  uid: string;
  clientName: string;
  devLogin: boolean;
  providers: ExternalProviderLink[];
  /** After a link was requested: the message, and in development the link itself. */
  sent?: { continueUrl?: string };
  error?: string;
};

export function signInPage(view: SignInPage): string {
  const action = (step: string) => `/oauth/interaction/${encodeURIComponent(view.uid)}/${step}`;
  const client = escapeHtml(view.clientName);
  const parts = [
    `<h1>Sign in to Beckon</h1>`,
    `<p><strong>${client}</strong> wants to connect to your Beckon account.</p>`,
  ];
  if (view.error) parts.push(`<p class="error" role="alert">${escapeHtml(view.error)}</p>`);
  if (view.sent) {
    parts.push(
      `<p role="status">If the address can receive mail, a sign-in link is on its way. Open it in this browser to continue.</p>`,
    );
    if (view.sent.continueUrl) {
      parts.push(
        `<p class="note">Development mode (no mail server): the link is here instead.</p>`,
        `<p><a class="button" href="${escapeHtml(view.sent.continueUrl)}">Continue</a></p>`,
      );
    }
  }
  parts.push(
    `<form method="post" action="${action('magic-link')}">`,
    `<label for="email">Email address</label>`,
    `<input id="email" name="email" type="email" required autocomplete="email" maxlength="320">`,
    `<button type="submit">Email me a sign-in link</button>`,
    `</form>`,
  );
  if (view.devLogin) {
    parts.push(
      `<hr><form method="post" action="${action('dev-login')}">`,
      `<label for="dev-email">Email address (development sign-in, not verified)</label>`,
      `<input id="dev-email" name="email" type="email" required autocomplete="email" maxlength="320">`,
      `<button type="submit" class="secondary">Sign in without verification</button>`,
      `</form>`,
    );
  }
  if (view.providers.length > 0) {
    parts.push(
      `<hr><p>Or continue with</p><ul>`,
      ...view.providers.map((p) => `<li><a href="${escapeHtml(p.href)}">${escapeHtml(p.name)}</a></li>`),
      `</ul>`,
    );
  }
  return page('Sign in', parts.join('\n'));
}

export type ConsentPage = {
  uid: string;
  clientName: string;
  redirectHost: string;
  email: string;
  orgName: string;
  scopes: string[];
};

export function consentPage(view: ConsentPage): string {
  const action = `/oauth/interaction/${encodeURIComponent(view.uid)}/consent`;
  const items = view.scopes.map(
    (scope) =>
      `<li>${escapeHtml(SCOPE_DESCRIPTIONS[scope] ?? scope)} <span class="note">(${escapeHtml(scope)})</span></li>`,
  );
  return page(
    'Allow access',
    [
      `<h1>Allow ${escapeHtml(view.clientName)} to use Beckon?</h1>`,
      `<p><strong>${escapeHtml(view.clientName)}</strong> (returning to <strong>${escapeHtml(view.redirectHost)}</strong>) asks to act as you, <strong>${escapeHtml(view.email)}</strong>, in <strong>${escapeHtml(view.orgName)}</strong>, the way an agent does. It will be able to:</p>`,
      `<ul>${items.join('')}</ul>`,
      `<p class="note">It can never do more than your role in ${escapeHtml(view.orgName)} allows, and nothing else: no members, settings, billing or keys. Its access lasts until you or it revokes it.</p>`,
      `<form method="post" action="${action}">`,
      `<button type="submit" name="decision" value="allow">Allow</button>`,
      `<button type="submit" name="decision" value="deny" class="secondary">Deny</button>`,
      `</form>`,
    ].join('\n'),
  );
}

export function noticePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}

/** What the mailed link opens: one button, so that only a person uses up the link. */
export function verifyPage(uid: string, token: string): string {
  const action = `/oauth/interaction/${encodeURIComponent(uid)}/verify`;
  return page(
    'Continue signing in',
    [
      `<h1>Continue signing in</h1>`,
      `<p>Confirm to sign in to Beckon in this browser and go back to the application.</p>`,
      `<form method="post" action="${action}">`,
      `<input type="hidden" name="token" value="${escapeHtml(token)}">`,
      `<button type="submit">Continue</button>`,
      `</form>`,
    ].join('\n'),
  );
}
