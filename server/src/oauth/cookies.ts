/** One cookie's value from a Cookie request header (RFC 6265 §5.4 pairs, first match wins). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/** The Cookie header without the named cookies. */
export function withoutCookies(header: string | undefined, names: ReadonlySet<string>): string {
  return (header ?? '')
    .split(';')
    .filter((pair) => {
      const at = pair.indexOf('=');
      return !(at > 0 && names.has(pair.slice(0, at).trim()));
    })
    .join(';')
    .trim();
}
