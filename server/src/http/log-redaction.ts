import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a secret: sign-in link tokens, OAuth codes and states. */
const SECRET_PARAMS = new Set(['token', 'code', 'state', 'key', 'access_token', 'refresh_token']);
/** Paths whose last segment is a secret (an inbound webhook's token, an invitation code). */
const SECRET_PATHS = /^(\/api\/webhooks\/inbound\/|\/auth\/invitations\/(?!accept$))[^/?]+/;

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
  const safePath = path.replace(SECRET_PATHS, '$1[redacted]');
  if (query === undefined) return safePath;
  const params = new URLSearchParams(query);
  for (const name of new Set(params.keys())) {
    if (SECRET_PARAMS.has(name.toLowerCase())) params.set(name, '[redacted]');
    else if (name === 'input') params.set(name, redactInput(params.get(name) ?? ''));
  }
  return `${safePath}?${params.toString().replaceAll('%5Bredacted%5D', '[redacted]')}`;
}

/** Fastify's request log fields, with the URL redacted (request logs are kept and shipped). */
export const requestSerializer = (request: FastifyRequest) => ({
  method: request.method,
  url: redactUrl(request.url),
  host: request.host,
  remoteAddress: request.ip,
  remotePort: request.socket?.remotePort,
});
