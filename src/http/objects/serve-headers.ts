import type { ByteRange } from '../../blobs/store.js';

// How stored objects are served from the API's own origin. Any type a browser could render as a page or
// run as script is an attachment; every object is nosniff and sandboxed, so an uploaded page can never run
// script with the API origin's cookies.

/** Types shown inline: media and plain data a browser never executes. Everything else is an attachment. */
const INLINE_TYPES = /^(image\/(png|jpeg|gif|webp|avif|bmp)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+|text\/plain|text\/csv|application\/json|application\/octet-stream)$/;

export const CONTENT_SECURITY_POLICY = "default-src 'none'; sandbox";

export function essence(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

export function isInline(contentType: string): boolean {
  return INLINE_TYPES.test(essence(contentType));
}

export function contentDisposition(contentType: string, key: string): string {
  if (isInline(contentType)) return 'inline';
  const base = key.split('/').filter(Boolean).pop() ?? 'object';
  return `attachment; filename*=UTF-8''${encodeURIComponent(base)}`;
}

/** A media type as RFC 9110 writes it (type/subtype and parameters), at most 255 characters. */
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(\s*;\s*[A-Za-z0-9!#$&^_.+-]+=("[^"\\\r\n]*"|[A-Za-z0-9!#$&^_.+-]+))*$/;
export const isMediaType = (value: string) => value.length <= 255 && MEDIA_TYPE.test(value);

export type RangeAnswer = { kind: 'whole' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * Reads one `Range: bytes=...` against an object of `size` bytes. Several ranges or a header that is not a
 * byte range are ignored (the whole object is sent), as RFC 9110 allows.
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (!header) return { kind: 'whole' };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'whole' };
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (match[2] !== '' && Number(match[2]) < start) return { kind: 'whole' };
    if (start >= size) return { kind: 'unsatisfiable' };
  }
  return { kind: 'partial', range: { start, end } };
}

/** Whether If-None-Match names this ETag (or `*`); weak comparison, as RFC 9110 asks for GET. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
