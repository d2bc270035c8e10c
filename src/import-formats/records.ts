import { JSONParser } from '@streamparser/json';

// JSON records from a stream of text chunks, one at a time: the elements of a top-level array, of the
// `users` array of a top-level object (Firebase's auth:export, the API's own body), or one JSON value per
// line (NDJSON, as Auth0 exports). Only the record being read is held. No Node API: runs in a browser too.

/** A record, or why one could not be read (a bad NDJSON line: the others still come). */
export type JsonRecord = { value: unknown } | { error: string };

/** Which layout the text has, from its first characters. */
function layoutOf(start: string): 'array' | 'users' | 'lines' {
  const text = start.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('[')) return 'array';
  if (/^\{\s*"users"\s*:/.test(text)) return 'users';
  return 'lines';
}

/** Enough of the start to tell the layout: 64 characters past the leading white space, or the whole text. */
const enoughToTell = (text: string) => text.trimStart().length >= 64;

export async function* jsonRecords(chunks: AsyncIterable<string>): AsyncGenerator<JsonRecord> {
  const iterator = chunks[Symbol.asyncIterator]();
  let start = '';
  let done = false;
  while (!enoughToTell(start)) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    start += next.value;
  }
  const rest: AsyncIterable<string> = {
    [Symbol.asyncIterator]: () => {
      let handed = false;
      return {
        next: async () => {
          if (!handed) {
            handed = true;
            return { done: false, value: start };
          }
          return done ? { done: true, value: undefined } : iterator.next();
        },
      };
    },
  };
  const layout = layoutOf(start);
  if (layout === 'lines') yield* lineRecords(rest);
  else yield* documentRecords(rest, layout === 'array' ? '$.*' : '$.users.*');
}

async function* documentRecords(chunks: AsyncIterable<string>, path: string): AsyncGenerator<JsonRecord> {
  const parser = new JSONParser({ paths: [path], keepStack: false });
  let found: unknown[] = [];
  parser.onValue = ({ value }) => {
    found.push(value);
  };
  for await (const chunk of chunks) {
    parser.write(chunk.replace(/^\uFEFF/, ''));
    const ready = found;
    found = [];
    for (const value of ready) yield { value };
  }
  if (!parser.isEnded) parser.end();
  for (const value of found) yield { value };
}

async function* lineRecords(chunks: AsyncIterable<string>): AsyncGenerator<JsonRecord> {
  let pending = '';
  const parse = (line: string): JsonRecord | undefined => {
    const text = line.replace(/^\uFEFF/, '').trim();
    if (text === '') return undefined;
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      return { error: 'a line that is not JSON' };
    }
  };
  for await (const chunk of chunks) {
    pending += chunk;
    let newline = pending.indexOf('\n');
    let from = 0;
    while (newline >= 0) {
      const record = parse(pending.slice(from, newline));
      if (record) yield record;
      from = newline + 1;
      newline = pending.indexOf('\n', from);
    }
    pending = pending.slice(from);
  }
  const last = parse(pending);
  if (last) yield last;
}
