import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorCode } from '../../errors.js';
import { connectionFailure, type ConnectionFailure } from '../../services/availability.js';
import { sendErrorPage, wantsErrorPage } from '../pages/error-pages.js';
import { unknownFieldDetail } from '../unknown-fields.js';
import type { Http } from '../types.js';
import { RETRY_AFTER_SECONDS } from './unavailable.js';

/** Fastify's own client errors (bad JSON, wrong content type, body too large) mapped to our statuses and codes. */
function frameworkStatus(error: FastifyError): { status: number; code: ErrorCode; detail: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, code: 'body_too_large', detail: 'request body is too large' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'unsupported_media_type', detail: 'unsupported content type; send application/json' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, code: 'validation_failed', detail: 'body must not be empty when content-type is application/json' };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, code: 'validation_failed', detail: 'body is not valid JSON' };
  }
  if (error.validation) {
    const unknown = error.validationContext === 'body' ? unknownFieldDetail(error.validation) : undefined;
    if (unknown) return { status: 400, code: 'unknown_field', detail: unknown };
    return { status: 400, code: 'validation_failed', detail: error.message || 'invalid request' };
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, code: STATUS_CODES[error.statusCode] ?? 'bad_request', detail: error.message };
  }
  return undefined;
}

/** The code of a client error Fastify or a plugin raised with a bare status. */
const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'body_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

/**
 * The one place errors are written: `{detail, code}` with the right status; `code` is one of ERROR_CODES
 * (src/errors.ts), the word clients branch on. Details are shown only below 500;
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
    // `{detail, code}`, or a page for a person who navigated to a route that may be opened in a browser.
    const answer = (status: number, code: ErrorCode, detail: string) =>
      wantsErrorPage(request) ? sendErrorPage(request, reply, status, code, detail) : reply.code(status).send({ detail, code });
    if (error instanceof ApiError) {
      if (error.outage) options.onOutage?.(error, request);
      else if (error.status >= 500) request.log.error({ err: error, cause: error.cause, code: error.code }, error.detail);
      else request.log.info({ code: error.code, status: error.status }, error.detail);
      reply.headers(error.headers);
      return answer(error.status, error.code, error.detail);
    }
    // A database outage is no bug: 503 the client may retry, counted and logged sparingly by onUnavailable.
    const outage = connectionFailure(error);
    if (outage) {
      options.onUnavailable?.(outage, error, request);
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return answer(503, 'database_unavailable', 'service temporarily unavailable; retry shortly');
    }
    const mapped = frameworkStatus(error);
    if (mapped) {
      request.log.info({ status: mapped.status, code: error.code }, mapped.detail);
      return answer(mapped.status, mapped.code, mapped.detail);
    }
    request.log.error({ err: error }, 'unhandled error');
    return answer(500, 'internal', 'internal error');
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ detail: `no route ${request.method} ${request.url.split('?')[0]}`, code: 'route_not_found' satisfies ErrorCode });
  });
}

/**
 * Router-level errors (malformed percent-encoding, an over-long path parameter), which Fastify answers
 * before any hook runs: the same `{detail, code}` envelope and X-Request-ID as every other error.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const detail = tooLong ? 'a path segment is too long' : 'the URL is malformed (bad percent-encoding)';
  const code: ErrorCode = tooLong ? 'uri_too_long' : 'malformed_request';
  request.log.info({ status: tooLong ? 414 : 400, code: error.code }, detail);
  reply.code(tooLong ? 414 : 400).header('x-request-id', request.id).send({ detail, code });
}

/**
 * Errors of the HTTP parser itself (malformed request line or headers, headers too large, timeouts):
 * no request exists yet, so the answer is written on the socket, still as `{detail, code}` with a request id.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, detail]: [number, string, ErrorCode, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'request_timeout', 'the request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'headers_too_large', 'request headers are too large']
        : [400, 'Bad Request', 'malformed_request', 'the request is not valid HTTP'];
  const body = JSON.stringify({ detail, code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-ID: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
