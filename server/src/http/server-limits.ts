import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Env } from '../env';
import { AppError } from '../errors';
import { addressSubject } from '../rate-limit/client-address';
import { sendAppError } from './errors';

/** The HTTP settings of env.ts that bound what one connection may hold (docs/configuration.md). */
export type ServerLimits = Pick<
  Env,
  | 'HTTP_REQUEST_TIMEOUT_MS'
  | 'HTTP_HEADERS_TIMEOUT_MS'
  | 'HTTP_IDLE_TIMEOUT_MS'
  | 'HTTP_KEEP_ALIVE_TIMEOUT_MS'
  | 'HTTP_MAX_REQUESTS_PER_SOCKET'
  | 'HTTP_MAX_BODIES_PER_ADDRESS'
>;

/**
 * Fastify's connection options from the settings: a request (headers and body) must arrive
 * within HTTP_REQUEST_TIMEOUT_MS, a kept-alive socket is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS
 * without a request or after HTTP_MAX_REQUESTS_PER_SOCKET, and, when HTTP_IDLE_TIMEOUT_MS is set,
 * a socket silent that long is closed (off by default: `tasks/result` may wait an hour in silence).
 */
export const serverOptions = (limits: ServerLimits) =>
  ({
    requestTimeout: limits.HTTP_REQUEST_TIMEOUT_MS,
    connectionTimeout: limits.HTTP_IDLE_TIMEOUT_MS,
    keepAliveTimeout: limits.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    maxRequestsPerSocket: limits.HTTP_MAX_REQUESTS_PER_SOCKET,
  }) satisfies FastifyServerOptions;

/** A request whose body is still to come (declared by Content-Length or chunked). */
export const hasBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined ||
  (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');

/**
 * Answers a request before its body is read: the socket is closed after the answer (Node would
 * otherwise read the rest of the body to keep the connection), so a refused upload holds
 * neither memory nor a socket.
 */
export function answerBeforeBody(request: FastifyRequest, reply: FastifyReply, error: AppError) {
  if (hasBody(request)) reply.header('connection', 'close');
  return sendAppError(reply, error);
}

/**
 * The header timeout (Node's own, set on the server) and the cap on the bodies one client
 * address may have in flight at once: past HTTP_MAX_BODIES_PER_ADDRESS, a 429 before the body is
 * read. Registered first on every process that reads bodies.
 */
export function registerServerLimits(app: FastifyInstance, limits: ServerLimits): void {
  // Node wants the header timeout within the request timeout (0: none).
  const request = limits.HTTP_REQUEST_TIMEOUT_MS;
  app.server.headersTimeout =
    request > 0 ? Math.min(limits.HTTP_HEADERS_TIMEOUT_MS, request) : limits.HTTP_HEADERS_TIMEOUT_MS;
  const inFlight = new Map<string, number>();
  const cap = limits.HTTP_MAX_BODIES_PER_ADDRESS;
  app.addHook('onRequest', (request, reply, done) => {
    if (!hasBody(request)) return done();
    const subject = addressSubject(request.ip);
    const count = (inFlight.get(subject) ?? 0) + 1;
    if (count > cap) {
      answerBeforeBody(request, reply, AppError.rateLimited(1));
      return;
    }
    inFlight.set(subject, count);
    reply.raw.once('close', () => {
      const left = (inFlight.get(subject) ?? 1) - 1;
      if (left > 0) inFlight.set(subject, left);
      else inFlight.delete(subject);
    });
    done();
  });
}
