import { randomBytes } from 'node:crypto';
import { base32Encode } from './totp.js';
import { sha256Hex } from './ids.js';

// Recovery codes: 10 per user, 50 random bits each, written `xxxxx-xxxxx` (lower-case base32), stored as
// their SHA-256 (random codes need no slow hash: nothing to guess offline). Single use.

export const RECOVERY_CODE_COUNT = 10;

export const newRecoveryCodes = (): string[] =>
  Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const code = base32Encode(randomBytes(7)).slice(0, 10).toLowerCase();
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });

/** The hash a code is stored and looked up by; spaces, dashes and case do not count. */
export const recoveryCodeHash = (code: string): string => sha256Hex(code.replace(/[\s-]/g, '').toLowerCase());
