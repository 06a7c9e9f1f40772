import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a secret: sign-in link tokens, OAuth codes and states. */
const SECRET_PARAMS = new Set(['token', 'code', 'state', 'key', 'access_token', 'refresh_token']);
/**
 * Paths whose last segment is a secret: an inbound webhook's token, an invitation code (the
 * account API's preview, and the dashboard's `/invite/<code>` page the gateway serves).
 */
const SECRET_PATHS = /^(\/api\/webhooks\/inbound\/|\/auth\/invitations\/(?!accept$)|\/invite\/)[^/?]+/i;

/** Percent-escapes of ASCII characters decoded; anything else left as it is (never throws). */
const decodeAscii = (path: string) =>
  path.replace(/%[0-7][0-9a-f]/gi, (hex) => String.fromCharCode(Number.parseInt(hex.slice(1), 16)));

/**
 * The path with its secret segment redacted. It is matched with its ASCII escapes decoded, so
 * `/%69nvite/<code>` is redacted too (and then logged decoded).
 */
function redactPath(path: string): string {
  const decoded = decodeAscii(path);
  return SECRET_PATHS.test(decoded) ? decoded.replace(SECRET_PATHS, '$1[redacted]') : path;
}

/** Fields of a tRPC `?input=` (JSON) that carry a secret: sign-in tokens, invitation codes. */
const SECRET_FIELDS = new Set([...SECRET_PARAMS, 'password', 'secret', 'client_secret']);

function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, field]) => [
      name,
      SECRET_FIELDS.has(name.toLowerCase()) ? '[redacted]' : redactJson(field),
    ]),
  );
}

/** A tRPC query's `input` (JSON, batches keyed by index) with its secret fields redacted. */
function redactInput(input: string): string {
  try {
    return JSON.stringify(redactJson(JSON.parse(input)));
  } catch {
    return '[redacted]';
  }
}

/** The URL as it may be logged: secrets in the path or the query replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const [path = '', query] = url.split('?', 2);
  const safePath = redactPath(path);
  if (query === undefined) return safePath;
  const params = new URLSearchParams(query);
  for (const name of new Set(params.keys())) {
    if (SECRET_PARAMS.has(name.toLowerCase())) params.set(name, '[redacted]');
    else if (name === 'input') params.set(name, redactInput(params.get(name) ?? ''));
  }
  return `${safePath}?${params.toString().replaceAll('%5Bredacted%5D', '[redacted]')}`;
}

/**
 * The `source` the gateway's proxy logs for each request it forwards (the upstream path, or a
 * whole URL), with the same redaction as a request's URL.
 */
export function redactProxySource(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const url = URL.parse(value);
  if (!url) return redactUrl(value);
  return `${url.origin}${redactUrl(`${url.pathname}${url.search}`)}`;
}

/** Fastify's request log fields, with the URL redacted (request logs are kept and shipped). */
export const requestSerializer = (request: FastifyRequest) => ({
  method: request.method,
  url: redactUrl(request.url),
  host: request.host,
  remoteAddress: request.ip,
  remotePort: request.socket?.remotePort,
});
