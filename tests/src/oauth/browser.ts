/**
 * A browser just capable enough for server-rendered pages: a cookie jar (name, path, expiry)
 * and redirects followed one by one, so a test sees every hop and can stop at the client's.
 */
export type Page = { url: string; status: number; headers: Headers; body: string };

type Cookie = { name: string; value: string; path: string };

export class Browser {
  private cookies: Cookie[] = [];

  cookieNames(): string[] {
    return this.cookies.map((c) => c.name);
  }

  cookie(name: string): string | undefined {
    return this.cookies.find((c) => c.name === name)?.value;
  }

  /** Stores a cookie as a Set-Cookie header would (e.g. one a test signed itself). */
  setCookie(setCookie: string, url: string) {
    this.store(setCookie, new URL(url));
  }

  /** Sends the request (no redirect followed) with the cookies that match its path. */
  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Page> {
    const target = new URL(url);
    const headers: Record<string, string> = {};
    const cookie = this.cookies
      .filter(
        (c) =>
          target.pathname === c.path ||
          target.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`),
      )
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(target, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) this.store(line, target);
    return {
      url: target.href,
      status: response.status,
      headers: response.headers,
      body: await response.text(),
    };
  }

  /**
   * Follows redirects from `url` until a page that is not a redirect, or a redirect to a
   * location for which `stop` is true (e.g. the client's redirect URI), which is returned.
   */
  async follow(
    url: string,
    stop: (location: string) => boolean,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<Page & { stoppedAt?: string }> {
    let page = await this.request(url, init);
    for (let hops = 0; hops < 10; hops++) {
      const location = page.headers.get('location');
      if (page.status < 300 || page.status >= 400 || !location) return page;
      const next = new URL(location, page.url).href;
      if (stop(next)) return { ...page, stoppedAt: next };
      page = await this.request(next);
    }
    throw new Error('too many redirects');
  }

  /** Submits the page's form whose action contains `action`, with its fields and `extra`. */
  async submit(
    page: Page,
    action: string,
    extra: Record<string, string>,
    stop: (location: string) => boolean,
  ) {
    const form = findForm(page.body, action);
    return this.follow(new URL(form.action, page.url).href, stop, {
      method: 'POST',
      form: { ...form.fields, ...extra },
    });
  }

  private store(line: string, origin: URL) {
    const [pair = '', ...attributes] = line.split(';');
    const at = pair.indexOf('=');
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    let path = '/';
    let expired = value === '';
    for (const attribute of attributes) {
      const [key = '', val = ''] = attribute.split('=');
      const k = key.trim().toLowerCase();
      if (k === 'path') path = val.trim() || '/';
      if (k === 'max-age' && Number(val) <= 0) expired = true;
      if (k === 'expires' && new Date(val.trim()).getTime() < Date.now()) expired = true;
    }
    this.cookies = this.cookies.filter((c) => !(c.name === name && c.path === path));
    if (!expired && origin) this.cookies.push({ name, value, path });
  }
}

const decode = (text: string) =>
  text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

const attribute = (tag: string, name: string) => {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match?.[1] === undefined ? undefined : decode(match[1]);
};

/** The fields a form posts by itself: its inputs with a value (hidden ones, mostly). */
export function findForm(html: string, action: string) {
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const formAction = attribute(match[1] ?? '', 'action') ?? '';
    if (!formAction.includes(action)) continue;
    const fields: Record<string, string> = {};
    for (const input of (match[2] ?? '').matchAll(/<input\b[^>]*>/g)) {
      const name = attribute(input[0], 'name');
      const value = attribute(input[0], 'value');
      if (name && value !== undefined) fields[name] = value;
    }
    return { action: formAction, fields };
  }
  throw new Error(`no form posting to ${action} in:\n${html}`);
}

/** The href of the first link whose text contains `text`. */
export function findLink(html: string, text: string): string {
  for (const match of html.matchAll(/<a\b([^>]*)>([\s\S]*?)<\/a>/g)) {
    if ((match[2] ?? '').includes(text)) return attribute(match[1] ?? '', 'href') ?? '';
  }
  throw new Error(`no link "${text}" in:\n${html}`);
}
