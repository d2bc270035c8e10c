// The import of the console's Import page (docs/console.md, "Import"): the vendor's export file read in the
// browser with the readers of `gatehouse user import` (src/import-formats, no Node API), counted once, then
// sent to POST /v1/users/import in batches of the API's maximum, each batch's answer added to the totals.
// Nothing is kept but the current batch, the totals and the first failures.
import type { Ok } from '@gatehouse/api-types';
import { readUsers, type FirebaseHashConfig, type ImportFormat, type ReadUser } from '../../../../src/import-formats/index.js';
import { api } from '../../api.js';

/** The most users POST /v1/users/import takes in one call (IMPORT_MAX of the service, docs/import.md). */
export const BATCH = 1000;
/** Failures listed in the page at most (the totals count all of them), as the CLI does. */
export const LISTED_FAILURES = 100;

export interface Failure {
  /** The user's place in the file, 1 for the first. */
  place: number;
  /** The address as the file gave it, masked (a***@example.com), when the reader found one. */
  email: string | null;
  code: string;
  detail: string;
}

export interface Progress {
  /** Users in the file (records the reader found, readable or not). */
  total: number;
  /** Users sent or refused so far. */
  done: number;
  created: number;
  skipped: number;
  failed: number;
  failures: Failure[];
}

/** The file as text chunks (UTF-8). */
async function* textChunks(file: Blob): AsyncGenerator<string> {
  const reader = file.stream().pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}

/** a***@example.com: enough to find the line, not the whole address in a screenshot. */
export function maskEmail(email: unknown): string | null {
  if (typeof email !== 'string' || !email.includes('@')) return null;
  const at = email.lastIndexOf('@');
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

const users = (file: Blob, format: ImportFormat, hashConfig: FirebaseHashConfig | undefined) => readUsers(textChunks(file), format, { hashConfig });

/** How many users the file holds: the same reader, once through, before anything is sent. */
export async function countUsers(file: Blob, format: ImportFormat, hashConfig: FirebaseHashConfig | undefined): Promise<number> {
  let count = 0;
  for await (const _ of users(file, format, hashConfig)) count++;
  return count;
}

/**
 * Imports the file into `appId`, calling `onProgress` after each batch. A record the reader cannot map fails
 * alone (code validation_failed, as the CLI reports it); a refused call (400, 403, 413) stops the import
 * and is thrown: the batches before it are in.
 */
export async function importFile(input: {
  appId: string;
  file: Blob;
  format: ImportFormat;
  hashConfig?: FirebaseHashConfig;
  onConflict: 'skip' | 'error';
  onProgress: (progress: Progress) => void;
}): Promise<Progress> {
  const progress: Progress = { total: await countUsers(input.file, input.format, input.hashConfig), done: 0, created: 0, skipped: 0, failed: 0, failures: [] };
  input.onProgress({ ...progress });
  const fail = (failure: Failure) => {
    progress.failed++;
    if (progress.failures.length < LISTED_FAILURES) progress.failures.push(failure);
  };
  let batch: { place: number; read: ReadUser }[] = [];
  const send = async () => {
    const readable = batch.filter((entry) => 'user' in entry.read) as { place: number; read: { user: { email: string } } }[];
    const failures: Failure[] = [];
    for (const entry of batch) if ('error' in entry.read) failures.push({ place: entry.place, email: null, code: 'validation_failed', detail: entry.read.error });
    if (readable.length > 0) {
      const answer = await api<Ok<'importUsers'>>('POST', '/v1/users/import', { appId: input.appId, body: { users: readable.map((entry) => entry.read.user), on_conflict: input.onConflict } });
      progress.created += answer.created;
      progress.skipped += answer.skipped;
      answer.results.forEach((result, i) => {
        const entry = readable[i]!;
        if (result.status === 'error') failures.push({ place: entry.place, email: maskEmail(entry.read.user.email), code: result.code ?? 'unknown', detail: result.detail ?? '' });
      });
    }
    for (const failure of failures.sort((a, b) => a.place - b.place)) fail(failure);
    progress.done += batch.length;
    batch = [];
    input.onProgress({ ...progress, failures: [...progress.failures] });
  };
  let place = 0;
  for await (const read of users(input.file, input.format, input.hashConfig)) {
    batch.push({ place: ++place, read });
    if (batch.length === BATCH) await send();
  }
  if (batch.length > 0) await send();
  return progress;
}
