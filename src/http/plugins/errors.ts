import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';
import { connectionFailure, type ConnectionFailure } from '../../services/availability.js';
import { sendErrorPage, wantsErrorPage } from '../pages/error-pages.js';
import { unknownFieldDetail } from '../unknown-fields.js';
import type { Http } from '../types.js';
import { RETRY_AFTER_SECONDS } from './unavailable.js';

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
    const unknown = error.validationContext === 'body' ? unknownFieldDetail(error.validation) : undefined;
    return { status: 400, detail: unknown ?? (error.message || 'invalid request') };
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
export function registerErrorHandling(
  app: Http,
  options: {
    onUnavailable?: (cause: ConnectionFailure, error: unknown, request: FastifyRequest) => void;
    /** An ApiError marked `outage` (a failed health probe, a blob store down): logged sparingly. */
    onOutage?: (error: ApiError, request: FastifyRequest) => void;
  } = {},
): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // `{detail}`, or a page for a person who navigated to a route that may be opened in a browser.
    const answer = (status: number, detail: string) =>
      wantsErrorPage(request) ? sendErrorPage(request, reply, status, detail) : reply.code(status).send({ detail });
    if (error instanceof ApiError) {
      if (error.outage) options.onOutage?.(error, request);
      else if (error.status >= 500) request.log.error({ err: error, cause: error.cause, code: error.code }, error.detail);
      else request.log.info({ code: error.code, status: error.status }, error.detail);
      reply.headers(error.headers);
      return answer(error.status, error.detail);
    }
    // A database outage is no bug: 503 the client may retry, counted and logged sparingly by onUnavailable.
    const outage = connectionFailure(error);
    if (outage) {
      options.onUnavailable?.(outage, error, request);
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return answer(503, 'service temporarily unavailable; retry shortly');
    }
    const mapped = frameworkStatus(error);
    if (mapped) {
      request.log.info({ status: mapped.status, code: error.code }, mapped.detail);
      return answer(mapped.status, mapped.detail);
    }
    request.log.error({ err: error }, 'unhandled error');
    return answer(500, 'internal error');
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `no route ${request.method} ${request.url.split('?')[0]}` });
  });
}

/**
 * Router-level errors (malformed percent-encoding, an over-long path parameter), which Fastify answers
 * before any hook runs: the same `{detail}` envelope and X-Request-ID as every other error.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const detail = tooLong ? 'a path segment is too long' : 'the URL is malformed (bad percent-encoding)';
  request.log.info({ status: tooLong ? 414 : 400, code: error.code }, detail);
  reply.code(tooLong ? 414 : 400).header('x-request-id', request.id).send({ detail });
}

/**
 * Errors of the HTTP parser itself (malformed request line or headers, headers too large, timeouts):
 * no request exists yet, so the answer is written on the socket, still as `{detail}` with a request id.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'the request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'request headers are too large']
        : [400, 'Bad Request', 'the request is not valid HTTP'];
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-ID: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
