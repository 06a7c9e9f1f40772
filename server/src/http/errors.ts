import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, toAppError } from '../errors';

export function sendAppError(reply: FastifyReply, error: AppError) {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(error.body);
}

const payloadLimitOf = (request: FastifyRequest) =>
  (request.routeOptions.config as { payloadLimit?: number } | undefined)?.payloadLimit;

/**
 * Every error leaves as the specification's body: Fastify's own (bad JSON, body limit, unknown
 * route) and those the procedures throw behind the REST routes.
 */
export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError =
      error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
        ? AppError.invalid({ body: 'malformed JSON' })
        : error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? AppError.payloadTooLarge(payloadLimitOf(request) ?? request.routeOptions.bodyLimit ?? bodyLimit)
          : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? AppError.unsupportedMediaType()
            : error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
              ? AppError.invalid({ body: 'empty JSON body' })
              : toAppError(error);
    if (appError.status === 500) request.log.error({ err: error }, 'request failed');
    return sendAppError(reply, appError);
  });
  app.setNotFoundHandler((_request, reply) => sendAppError(reply, AppError.notFound()));
}
