import { badRequest } from '../errors.js';

// The keyset cursor of a list paged by two columns (events, users, webhook deliveries, objects): the last
// row's two position strings as base64url JSON. Nothing the page did not show, so it needs no MAC; any
// position is valid (the list's query stays scoped), a malformed one is 400.

export const encodePairCursor = (first: string, second: string): string => Buffer.from(JSON.stringify([first, second])).toString('base64url');

/**
 * The two strings of a cursor this service gave, each matching its pattern when `patterns` is given;
 * 400 "cursor is not one this service gave" for anything else.
 */
export function decodePairCursor(cursor: string, patterns?: readonly [RegExp, RegExp]): [string, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string' && (!patterns || (patterns[0].test(value[0]) && patterns[1].test(value[1])))) {
      return [value[0], value[1]];
    }
  } catch {
    // not base64url JSON: the answer below
  }
  throw badRequest('cursor is not one this service gave');
}
