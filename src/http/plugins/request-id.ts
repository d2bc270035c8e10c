import { randomFillSync } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const VALID_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** UUIDs made per batch: one random fill and one string for this many requests. */
export const UUID_BATCH = 128;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const random = Buffer.allocUnsafe(16 * UUID_BATCH);
const text = Buffer.allocUnsafe(36 * UUID_BATCH);
let batch = '';
let next = UUID_BATCH;

/**
 * Writes UUID_BATCH random (version 4, RFC 9562) UUIDs, 36 characters each, into one string.
 * node's randomUUID builds each of its UUIDs from 20 concatenated pieces, a string the response's header
 * and the access line each flatten again (about 3 % of a /v1/health request's CPU, bench/README.md);
 * a slice of this batch is one flat string, made in one step.
 */
function fillBatch(): void {
  randomFillSync(random);
  let at = 0;
  for (let i = 0; i < random.length; i++) {
    const place = i % 16;
    let byte = random[i]!;
    if (place === 6) byte = (byte & 0x0f) | 0x40; // version 4
    else if (place === 8) byte = (byte & 0x3f) | 0x80; // variant 10
    if (place === 4 || place === 6 || place === 8 || place === 10) text[at++] = 0x2d; // '-'
    text[at++] = HEX[byte >> 4]!;
    text[at++] = HEX[byte & 0x0f]!;
  }
  batch = text.toString('latin1');
  next = 0;
}

/** A new random UUID, lower-case, as randomUUID makes them. */
export function newRequestUuid(): string {
  if (next === UUID_BATCH) fillBatch();
  const start = 36 * next++;
  return batch.slice(start, start + 36);
}

/** Echoes a well-formed client X-Request-ID, otherwise makes a new UUID (docs/api.md). */
export function genReqId(request: IncomingMessage): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && VALID_REQUEST_ID.test(sent) ? sent : newRequestUuid();
}
