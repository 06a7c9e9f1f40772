import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AppError, toAppError } from '../errors';

declare module 'fastify' {
  interface FastifyRequest {
    /** The error a tRPC/OpenAPI handler failed with, rendered by the onSend hook below. */
    appError?: AppError;
  }
}

export function sendAppError(reply: FastifyReply, error: AppError) {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(error.body);
}

/**
 * Every error leaves as the specification's body: Fastify's own (bad JSON, body limit, unknown
 * route) and those of the generated REST handler, whose default shape never leaks.
 */
export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError =
      error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
        ? AppError.invalid({ body: 'malformed JSON' })
        : error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? AppError.payloadTooLarge(bodyLimit)
          : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? AppError.unsupportedMediaType()
            : error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
              ? AppError.invalid({ body: 'empty JSON body' })
              : toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendAppError(reply, appError);
  });
  app.setNotFoundHandler((_request, reply) => sendAppError(reply, AppError.notFound()));
  app.addHook('onSend', async (request, reply, payload) => {
    const appError = request.appError;
    if (!appError) return payload;
    reply.code(appError.status).headers(appError.headers).type('application/json; charset=utf-8');
    return JSON.stringify(appError.body);
  });
}

/** For the tRPC and OpenAPI adapters' onError: remember the mapped error on the request. */
export function captureAppError(req: unknown, error: unknown, log: FastifyInstance['log']) {
  const appError = toAppError(error);
  if (appError.status >= 500) log.error({ err: error }, 'procedure failed');
  (req as { appError?: AppError }).appError = appError;
  return appError;
}
