import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const VALID_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Echoes a well-formed client X-Request-ID, otherwise makes a new UUID (contract.md section 0). */
export function genReqId(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && VALID_REQUEST_ID.test(sent) ? sent : randomUUID();
}
