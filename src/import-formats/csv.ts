// RFC 4180 CSV, read from a stream of text chunks: quoted fields (with "" for a quote, and line breaks
// inside), CRLF or LF, a byte-order mark before the header. Each row after the header is answered as an
// object keyed by the header's names; only the row being read is held. No Node API: runs in a browser too.

export async function* csvRows(chunks: AsyncIterable<string>): AsyncGenerator<Record<string, string>> {
  let header: string[] | undefined;
  let field = '';
  let row: string[] = [];
  let quoted = false;
  // In a quoted field, a quote just seen: the field's end, or the first of "".
  let quoteSeen = false;
  let fieldStarted = false;
  let first = true;
  const rowOf = (values: string[]) => Object.fromEntries(header!.map((name, i) => [name, values[i] ?? '']));
  function* endRow(): Generator<Record<string, string>> {
    row.push(field);
    field = '';
    fieldStarted = false;
    const values = row;
    row = [];
    if (values.length === 1 && values[0] === '') return; // a blank line
    if (!header) header = values.map((name) => name.trim());
    else yield rowOf(values);
  }
  for await (let chunk of chunks) {
    if (first && chunk.length > 0) {
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      first = false;
    }
    let plainFrom = -1;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false;
          if (c === '"') {
            field += '"';
            continue;
          }
          quoted = false;
        } else if (c === '"') {
          quoteSeen = true;
          continue;
        } else {
          field += c;
          continue;
        }
      }
      if (plainFrom >= 0 && (c === ',' || c === '\n' || c === '\r' || c === '"')) {
        field += chunk.slice(plainFrom, i);
        plainFrom = -1;
      }
      if (c === '"' && !fieldStarted) {
        quoted = true;
        fieldStarted = true;
      } else if (c === ',') {
        row.push(field);
        field = '';
        fieldStarted = false;
      } else if (c === '\n') {
        yield* endRow();
      } else if (c === '\r') {
        // CRLF: the \n ends the row; a lone \r is dropped.
      } else if (plainFrom < 0) {
        plainFrom = i;
        fieldStarted = true;
      }
    }
    if (plainFrom >= 0) field += chunk.slice(plainFrom);
  }
  if (quoted && !quoteSeen) throw new Error('the file ends inside a quoted field');
  if (field !== '' || row.length > 0) yield* endRow();
}
