import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, toAppError, toJsonRpcError } from '../errors';

export function sendAppError(reply: FastifyReply, error: AppError) {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(error.body);
}

const payloadLimitOf = (request: FastifyRequest) =>
  (request.routeOptions.config as { payloadLimit?: number } | undefined)?.payloadLimit;

/** JSON-RPC's code for a body that is not JSON. */
const PARSE_ERROR = -32700;

/**
 * An error of reading a POST /mcp body (not JSON, too large, another media type) as MCP's
 * transport answers it: a JSON-RPC error with id null (no request could be read), its `data` the
 * REST body.
 */
function sendJsonRpcRefusal(reply: FastifyReply, error: AppError, unparsable: boolean) {
  const { code, message, data } = toJsonRpcError(error);
  const refusal = unparsable
    ? { code: PARSE_ERROR, message: 'Parse error: the body is not JSON', data }
    : { code, message, data };
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', id: null, error: refusal });
}

/**
 * Every error leaves as the specification's body: Fastify's own (bad JSON, body limit, unknown
 * route) and those the procedures throw behind the REST routes; POST /mcp's unreadable bodies as
 * JSON-RPC errors.
 */
export function registerErrorHandling(
  app: FastifyInstance,
  bodyLimit: number,
  /** Where a path this process does not serve is served, for the 404's `hint` (wrong port). */
  servedElsewhere: (path: string) => string | undefined = () => undefined,
): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const malformed = error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError;
    const appError = malformed
      ? AppError.invalid({ body: 'malformed JSON' })
      : error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? AppError.payloadTooLarge(payloadLimitOf(request) ?? request.routeOptions.bodyLimit ?? bodyLimit)
        : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? AppError.unsupportedMediaType()
          : error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
            ? AppError.invalid({ body: 'empty JSON body' })
            : toAppError(error);
    if (appError.status === 500) request.log.error({ err: error }, 'request failed');
    const unparsable = malformed || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY';
    const unread =
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE';
    if (request.routeOptions.url === '/mcp' && request.method === 'POST' && (unparsable || unread))
      return sendJsonRpcRefusal(reply, appError, unparsable);
    return sendAppError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) => {
    const hint = servedElsewhere(request.url.split('?', 1)[0] ?? '');
    sendAppError(reply, hint ? AppError.of('not_found', 'not found', { hint }) : AppError.notFound());
  });
}
