import { badRequest } from '../../errors.js';
import type { Metadata } from '../../store/repos/users.js';

// A user's metadata (docs/users.md): three JSON objects, each at most METADATA_MAX_BYTES as JSON text.
// - public_metadata: the server writes it; the user reads it (GET /v1/me).
// - private_metadata: the server writes and reads it; never shown to the user.
// - unsafe_metadata: the user writes it (PATCH /v1/me), so nothing may trust it.
// A write replaces the whole object (no merge: what the caller sends is what is kept).

export const METADATA_MAX_BYTES = 8 * 1024;

export type MetadataKind = 'public_metadata' | 'private_metadata' | 'unsafe_metadata' | 'metadata';

/** The object as stored, or 400 `metadata_too_large` when its JSON text exceeds 8 KiB. */
export function metadataText(kind: MetadataKind, value: Metadata): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest(`${kind} must be a JSON object`);
  const text = JSON.stringify(value);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > METADATA_MAX_BYTES) {
    throw badRequest(`${kind} is ${bytes} bytes as JSON; at most ${METADATA_MAX_BYTES} are kept`, 'metadata_too_large');
  }
  return text;
}
