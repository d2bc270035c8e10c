import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { genReqId, newRequestUuid, UUID_BATCH } from './request-id.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('makes distinct version 4 UUIDs across several batches', () => {
    const ids = Array.from({ length: UUID_BATCH * 3 + 5 }, () => newRequestUuid());
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('spreads its randomness over every hexadecimal digit but the fixed version nibble', () => {
    const ids = Array.from({ length: UUID_BATCH * 4 }, () => newRequestUuid().replaceAll('-', ''));
    for (let place = 0; place < 32; place++) {
      const digits = new Set(ids.map((id) => id[place]));
      if (place === 12) expect([...digits]).toEqual(['4']);
      else if (place === 16) expect([...digits].sort()).toEqual(['8', '9', 'a', 'b']);
      else expect(digits.size).toBe(16);
    }
  });

  it('echoes a well-formed client id and replaces any other with a new UUID', () => {
    const sent = (value?: string | string[]) => ({ headers: value === undefined ? {} : { 'x-request-id': value } }) as unknown as IncomingMessage;
    expect(genReqId(sent('trace-1.a_B'))).toBe('trace-1.a_B');
    expect(genReqId(sent())).toMatch(V4);
    expect(genReqId(sent('bad id'))).toMatch(V4);
    expect(genReqId(sent('x'.repeat(129)))).toMatch(V4);
    expect(genReqId(sent(['a', 'b']))).toMatch(V4);
  });
});
