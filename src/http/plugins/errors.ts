import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';
import type { Http } from '../types.js';

/** Fastify's own client errors (bad JSON, wrong content type, body too large) mapped to our statuses. */
function frameworkStatus(error: FastifyError): { status: number; detail: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, detail: 'request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, detail: 'unsupported content type; send application/json' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, detail: 'body must not be empty when content-type is application/json' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, detail: 'body is not valid JSON' };
  }
  if (error.validation) {
    return { status: 400, detail: error.message || 'invalid request' };
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, detail: error.message };
  }
  return undefined;
}

/**
 * The one place errors are written: `{detail}` with the right status. Details are shown only below 500;
 * a fault answers "internal error" and the log line carries the cause and the request id.
 */
export function registerErrorHandling(app: Http): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      if (error.status >= 500) request.log.error({ err: error, cause: error.cause, code: error.code }, error.detail);
      else request.log.info({ code: error.code, status: error.status }, error.detail);
      return reply.code(error.status).headers(error.headers).send({ detail: error.status >= 500 ? error.detail : error.detail });
    }
    const mapped = frameworkStatus(error);
    if (mapped) {
      request.log.info({ status: mapped.status, code: error.code }, mapped.detail);
      return reply.code(mapped.status).send({ detail: mapped.detail });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ detail: 'internal error' });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `no route ${request.method} ${request.url.split('?')[0]}` });
  });
}
