import { Type } from '@sinclair/typebox';

// The server strips properties that a schema closes with `additionalProperties: false` (removeAdditional).
// Table bodies refuse them instead: a misspelt field (`colums`, `dta`) is a 400, not silently ignored.
export const NoOtherField = Type.Never({ description: 'no other field' });
