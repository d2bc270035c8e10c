import { describe, expect, it } from 'vitest';
import { maskEmail, maskEmailsIn } from './mask-email.js';

describe('14 privacy: email addresses masked in log text', () => {
  it('keeps the first character and the domain', () => {
    expect(maskEmail('alice@example.com')).toBe('a***@example.com');
    expect(maskEmail('not-an-address')).toBe('***');
  });

  it('masks every address in a line, URL-encoded ones too, and leaves other text alone', () => {
    const line = '{"to":"Bob.Smith+x@mail.example.org","url":"/v1/users?email=carol%40example.com","msg":"550 <dave@example.net> unknown"}';
    const masked = maskEmailsIn(line);
    expect(masked).not.toMatch(/Bob\.Smith|carol|dave/);
    expect(masked).toContain('B***@mail.example.org');
    expect(masked).toContain('c***%40example.com');
    expect(masked).toContain('d***@example.net');
    expect(maskEmailsIn('no-reply@localhost and a plain line')).toBe('no-reply@localhost and a plain line');
  });
});
