import { Type, type TSchema } from '@sinclair/typebox';

// Shared response pieces. Every route declares its responses so a field not in them can never leak.

export const ErrorBody = Type.Object({ detail: Type.String() }, { $id: 'Error', description: 'Every error' });

/** The error responses a route can give, by status. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, Type.Ref('Error')]));
}

export const StatusBody = (word: string) => Type.Object({ status: Type.Literal(word) });

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time' });
