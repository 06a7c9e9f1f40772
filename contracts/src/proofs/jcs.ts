/**
 * RFC 8785 JSON Canonicalization Scheme: the one serialisation every digest of Beckon is taken
 * over (audit chain links, action digests). Pure, so the server, the SDK and the dashboard share
 * it. Numbers are ECMAScript's shortest round-trip form (what RFC 8785 specifies), strings are
 * JSON.stringify's (lower-case \u escapes), object keys are sorted by UTF-16 code units.
 */
export function canonicalize(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`JCS: ${value} is not a JSON number`);
      // Number#toString is RFC 8785's number serialisation; -0 prints as "0".
      return String(value);
    case 'string':
      return JSON.stringify(value);
    case 'object':
      return canonicalObject(value as object);
    default:
      throw new TypeError(`JCS: a ${typeof value} is not JSON`);
  }
}

function canonicalObject(value: object): string {
  const json = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof json === 'function') return canonicalize(json.call(value));
  if (Array.isArray(value)) {
    // As JSON.stringify: undefined and functions inside an array are null.
    return `[${value.map((v) => (v === undefined || typeof v === 'function' ? 'null' : canonicalize(v))).join(',')}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== 'function');
  // The default sort compares UTF-16 code units, as RFC 8785 section 3.2.3 requires.
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalize(v)}`).join(',')}}`;
}

/** Lower-case hex SHA-256 of a string's UTF-8 bytes (Web Crypto: Node, browsers, workers). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** SHA-256 over the JCS form of a JSON value, lower-case hex. */
export const jcsDigest = (value: unknown) => sha256Hex(canonicalize(value));
