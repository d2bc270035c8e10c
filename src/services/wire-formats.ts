import { Type } from '@sinclair/typebox';

// The wire's string formats, one definition for the routes' schemas (http/schemas.ts) and the records the
// services build and declare as TypeBox beside them (services/*/records.ts): the routes answer with those.

export const Uuid = Type.String({ format: 'uuid' });
export const Timestamp = Type.String({ format: 'date-time' });
