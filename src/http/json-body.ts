import secureJson from 'secure-json-parse';

/** The deepest a JSON body may nest objects and arrays (docs/api.md); deeper is 400. */
export const MAX_JSON_DEPTH = 64;

/** Why a JSON body is refused: the 400's detail. */
export class BadJsonBody extends Error {}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;

/**
 * True when the JSON `text` nests objects and arrays deeper than `max`. Counted on the text, before
 * parsing: code that walks a value recursively (validation, a row's json column, serialisation) would
 * overflow the stack on a value thousands of levels deep and answer 500. Strings are skipped whole with
 * indexOf, so brackets inside them do not count and the scan stays cheap beside the parse.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = closingQuote(text, i);
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** The index of the quote that closes the string opened at `open` (the text's end when none does). */
function closingQuote(text: string, open: number): number {
  let i = open;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
}

/** Refuses a NUL in a key or a string: PostgreSQL text cannot hold it (docs/security.md). */
function refuseNul(key: string, value: unknown): unknown {
  if (key.includes('\0') || (typeof value === 'string' && value.includes('\0'))) throw new BadJsonBody('body must not contain a NUL character');
  return value;
}

/**
 * Parses a request's JSON body. Refuses (BadJsonBody) invalid JSON, nesting deeper than MAX_JSON_DEPTH
 * and a NUL character. Drops the keys that could poison prototypes by secure-json-parse's rule: every
 * `__proto__`, and `constructor` only where it holds a `prototype` (so a custom-table column or a json
 * value may be named `constructor`).
 */
export function parseJsonBody(text: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new BadJsonBody(`body nests deeper than ${MAX_JSON_DEPTH} levels`);
  // A NUL can only come as the escape \u0000 (JSON refuses a raw one): a body without `\u` needs no
  // reviver, which costs three times the parse.
  const reviver = text.includes('\\u') ? refuseNul : undefined;
  try {
    return secureJson.parse(text, reviver, { protoAction: 'remove', constructorAction: 'remove' });
  } catch (error) {
    if (error instanceof BadJsonBody) throw error;
    throw new BadJsonBody('body is not valid JSON');
  }
}
