import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors';
import { sendAppError } from './errors';

/**
 * A percent-escape of an unreserved character (RFC 3986 §2.3: letters, digits, `-._~`). Such an
 * escape means the same URI as the character itself, so no conforming client sends one; the
 * router decodes it while a limit matching the raw URL would not, which makes it a way around
 * every limit keyed on the path (`/%61pi/me` is routed as `/api/me`).
 */
const UNRESERVED_ESCAPE = /%(?:[46][1-9A-F]|[57][0-9A]|3[0-9]|2[DE]|5F|7E)/i;

/** True when the path of `url` (the query aside) holds an escaped unreserved character. */
export function hasNonCanonicalPath(url: string): boolean {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return path.includes('%') && UNRESERVED_ESCAPE.test(path);
}

/**
 * Refuses (400) a path written in a non-canonical form before anything else looks at it: the
 * limits, the authentication and the routes all see the path the client wrote and the router
 * dispatches. Registered before every other hook.
 */
export function registerCanonicalPath(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (!hasNonCanonicalPath(request.url)) return done();
    const error = AppError.invalid({ path: 'must not percent-encode letters, digits or -._~' });
    sendAppError(reply, error);
  });
}
