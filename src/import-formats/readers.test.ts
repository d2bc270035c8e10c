import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { csvRows } from './csv.js';
import { parseHashConfig, readUsers } from './index.js';
import { jsonRecords } from './records.js';

// The export readers (docs/import.md) read any split of the text alike, hold one record at a time, and use
// no Node API (the console runs them in a browser).

async function* chunked(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}
const all = async <T>(items: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

describe('export readers', () => {
  it('CSV: quotes, "" inside them, commas and line breaks in a field, CRLF, a BOM, a blank line; any chunk size', async () => {
    const text = '\uFEFFid,email,meta\r\n1,a@example.com,"{""name"":""Ada, L""}"\r\n\r\n2,b@example.com,"two\nlines"\n3,c@example.com,';
    const expected = [
      { id: '1', email: 'a@example.com', meta: '{"name":"Ada, L"}' },
      { id: '2', email: 'b@example.com', meta: 'two\nlines' },
      { id: '3', email: 'c@example.com', meta: '' },
    ];
    for (const size of [1, 2, 3, 7, 1000]) expect(await all(csvRows(chunked(text, size)))).toEqual(expected);
  });

  it('JSON: an array, a {"users": [...]} document and NDJSON (a bad line answered as an error), any chunk size', async () => {
    const users = [{ email: 'a@example.com', n: [1, { x: 'y' }] }, { email: 'b@example.com' }];
    for (const size of [1, 5, 64, 10_000]) {
      expect(await all(jsonRecords(chunked(JSON.stringify(users), size)))).toEqual(users.map((value) => ({ value })));
      expect(await all(jsonRecords(chunked(`  ${JSON.stringify({ users }, null, 2)}`, size)))).toEqual(users.map((value) => ({ value })));
      const lines = `${JSON.stringify(users[0])}\nnot json\n\n${JSON.stringify(users[1])}`;
      expect(await all(jsonRecords(chunked(lines, size)))).toEqual([{ value: users[0] }, { error: 'a line that is not JSON' }, { value: users[1] }]);
    }
  });

  it("Firebase's hash config as the console shows it, or as JSON", () => {
    const console = `hash_config {\n  algorithm: SCRYPT,\n  base64_signer_key: jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==,\n  base64_salt_separator: Bw==,\n  rounds: 8,\n  mem_cost: 14,\n}\n`;
    const expected = { signerKey: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==', saltSeparator: 'Bw==', rounds: 8, memCost: 14 };
    expect(parseHashConfig(console)).toEqual(expected);
    expect(parseHashConfig(JSON.stringify({ hash_config: { algorithm: 'SCRYPT', base64_signer_key: expected.signerKey, base64_salt_separator: 'Bw==', rounds: 8, mem_cost: 14 } }))).toEqual(expected);
    expect(() => parseHashConfig('hash_config { algorithm: HMAC_SHA256 }')).toThrow(/SCRYPT/);
    expect(() => parseHashConfig('hash_config { algorithm: SCRYPT, rounds: 8 }')).toThrow(/base64_signer_key/);
  });

  it('a vendor record that cannot be a user is an error in its place; the next still comes', async () => {
    const csv = 'id,email,encrypted_password,email_confirmed_at,created_at,deleted_at\nu1,,x,,,\nu2,b@example.com,,2024-01-02 03:04:05.123456+00,2023-12-31 23:00:00+00,\n';
    expect(await all(readUsers(chunked(csv, 4), 'supabase'))).toEqual([
      { error: 'no email address (a user without one cannot be imported)' },
      { user: { email: 'b@example.com', email_verified: true, external_id: 'u2', created_at: '2023-12-31T23:00:00.000Z' } },
    ]);
  });

  it('the parsing core imports no Node module and uses no Node global', () => {
    const dir = new URL('.', import.meta.url);
    for (const file of readdirSync(dir).filter((name) => /\.ts$/.test(name) && !name.endsWith('.test.ts'))) {
      const source = readFileSync(new URL(file, dir), 'utf8');
      expect(source, file).not.toMatch(/from '(node:|fs|path|stream|buffer|crypto)/);
      expect(source, file).not.toMatch(/\b(Buffer|process|require)\b[.(]/);
    }
  });
});
