import { Type, type TArray, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { Timestamp, Uuid } from '../services/wire-formats.js';

// Shared response pieces. Every route declares its responses so a field not in them can never leak.

/** `code` is the word clients branch on (docs/api.md lists them), `detail` the sentence for people. */
export const ErrorBody = Type.Object(
  {
    detail: Type.String(),
    code: Type.Unsafe<ErrorCode>({ type: 'string', enum: [...ERROR_CODES], description: 'a stable snake_case code (docs/api.md)' }),
  },
  { $id: 'Error', description: 'Every error' },
);

/** The error responses a route can give, by status. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('Error')]));
}

/** `{status: word}`, named in the OpenAPI document by its word (`{status: 'deleted'}`: DeletedStatus). */
export const StatusBody = (word: string) =>
  Type.Object({ status: Type.Literal(word) }, { title: `${word.replace(/(?:^|_)([a-z])/g, (_, c: string) => c.toUpperCase())}Status` });

/** The answer of a route that deletes: `{status: 'deleted'}` (StatusBody('deleted')) once the deletion is done. */
export async function deleted(deletion: Promise<unknown>): Promise<{ status: 'deleted' }> {
  await deletion;
  return { status: 'deleted' };
}

/** A list answered whole, under its plural: `ListOf('webhooks', WebhookRecord)` is `{webhooks: [...]}`. */
export const ListOf = <K extends string, T extends TSchema>(name: K, item: T) => Type.Object({ [name]: Type.Array(item) } as { [P in K]: TArray<T> });

/** Where the next page of a keyset list starts; null on the last page. */
const Cursor = Type.Union([Type.String(), Type.Null()]);

/** A page of a keyset list: `{[name]: [...], next_cursor}`; `nextCursor` when the list documents its cursor. */
export const PageOf = <K extends string, T extends TSchema, C extends TSchema = typeof Cursor>(name: K, item: T, nextCursor?: C) =>
  Type.Object({ [name]: Type.Array(item), next_cursor: nextCursor ?? Cursor } as { [P in K]: TArray<T> } & { next_cursor: C });

/** The wire's string formats (services/wire-formats.ts, which the services' records share). */
export { Timestamp, Uuid };

/** The last fields of a stored record's body: when it was created and last changed. */
export const Timestamps = { created_at: Timestamp, updated_at: Timestamp };

/** A stored record's body: the record's own fields, then its Timestamps. */
export const withTimestamps = <T extends object>(record: { createdAt: string; updatedAt: string }, fields: T) => ({ ...fields, created_at: record.createdAt, updated_at: record.updatedAt });

/**
 * An integer parameter: always a safe integer (docs/rate-limits.md), within the route's own range when
 * it gives one. Use it for every integer a client sends; a bare Type.Integer lets 1e20 through.
 */
export const SafeInteger = (options: { minimum?: number; maximum?: number; default?: number; description?: string } = {}) =>
  Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, ...options });
