import { csvRows } from './csv.js';
import { jsonRecords } from './records.js';
import { fromAuth0, fromClerk, fromFirebase, fromSupabase, type FirebaseHashConfig, type ImportUser } from './vendors.js';

// The readers of `gatehouse user import` (docs/import.md), one module for the CLI and the console: each takes
// the export file as a stream of text chunks (a Node file stream, a browser File's text stream) and answers
// its users one at a time, so a file of a million users is never held in memory. No Node API is used here.

export type { FirebaseHashConfig, ImportUser } from './vendors.js';

export const FORMATS = ['gatehouse', 'firebase', 'supabase', 'auth0', 'clerk'] as const;
export type ImportFormat = (typeof FORMATS)[number];

/** A user read from the file, or why the record at that place is not one (it fails alone). */
export type ReadUser = { user: ImportUser } | { error: string };

function mapped(map: (value: unknown) => ImportUser, value: unknown): ReadUser {
  try {
    return { user: map(value) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** CSV when the first non-blank character cannot start JSON. */
async function* csvOrJson(chunks: AsyncIterable<string>): AsyncGenerator<{ value: unknown } | { error: string }> {
  const iterator = chunks[Symbol.asyncIterator]();
  let start = '';
  let done = false;
  while (start.replace(/^\uFEFF/, '').trim() === '') {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    start += next.value;
  }
  async function* again(): AsyncGenerator<string> {
    yield start;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  const first = start.replace(/^\uFEFF/, '').trimStart()[0];
  if (first === '[' || first === '{') yield* jsonRecords(again());
  else for await (const row of csvRows(again())) yield { value: row };
}

/** The users of an export file in the given vendor's format, in the file's order. */
export async function* readUsers(chunks: AsyncIterable<string>, format: ImportFormat, options: { hashConfig?: FirebaseHashConfig } = {}): AsyncGenerator<ReadUser> {
  const records = format === 'supabase' || format === 'clerk' ? csvOrJson(chunks) : jsonRecords(chunks);
  const map: (value: unknown) => ImportUser = {
    gatehouse: (value: unknown) => value as ImportUser,
    firebase: (value: unknown) => fromFirebase(value, options.hashConfig),
    supabase: fromSupabase,
    auth0: fromAuth0,
    clerk: fromClerk,
  }[format];
  for await (const record of records) yield 'error' in record ? record : mapped(map, record.value);
}

/**
 * Firebase's password hash parameters, as its console shows them
 * (`hash_config { algorithm: SCRYPT, base64_signer_key: ..., base64_salt_separator: ..., rounds: 8, mem_cost: 14 }`)
 * or the same keys as JSON (optionally inside "hash_config"). Throws an Error saying what is missing.
 */
export function parseHashConfig(text: string): FirebaseHashConfig {
  let fields: Record<string, unknown>;
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const parsed = JSON.parse(trimmed) as Record<string, unknown>;
    fields = (typeof parsed.hash_config === 'object' && parsed.hash_config !== null ? parsed.hash_config : parsed) as Record<string, unknown>;
  } else {
    fields = {};
    for (const match of trimmed.matchAll(/([a-z_0-9]+)\s*:\s*("[^"]*"|[^,\n}]+)/gi)) fields[match[1]!] = match[2]!.trim().replace(/^"|"$/g, '');
  }
  const algorithm = String(fields.algorithm ?? 'SCRYPT').toUpperCase();
  if (algorithm !== 'SCRYPT') throw new Error(`hash config algorithm ${algorithm.slice(0, 20)}: only SCRYPT (Firebase's default) is supported`);
  const signerKey = fields.base64_signer_key;
  const saltSeparator = fields.base64_salt_separator;
  const rounds = Number(fields.rounds);
  const memCost = Number(fields.mem_cost);
  if (typeof signerKey !== 'string' || typeof saltSeparator !== 'string' || !Number.isInteger(rounds) || !Number.isInteger(memCost)) {
    throw new Error('the hash config needs base64_signer_key, base64_salt_separator, rounds and mem_cost');
  }
  return { signerKey, saltSeparator, rounds, memCost };
}
