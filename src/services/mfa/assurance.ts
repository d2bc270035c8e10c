// Authentication methods (RFC 8176 `amr`) and assurance levels (`aal`) carried by access tokens
// (docs/mfa.md). A session keeps its amr (sessions.amr), so a refresh answers the same claims.

/** How a session was opened: first factors, then second factors. */
export type Amr = 'pwd' | 'email' | 'oauth' | 'sso' | 'bot' | 'token' | 'otp' | 'recovery' | 'webauthn';
export type Aal = 'aal1' | 'aal2';

const SECOND_FACTORS: ReadonlySet<string> = new Set(['otp', 'recovery', 'webauthn']);

/** aal2 when a second factor (or a passkey, itself two factors: a device and its user verification) was used. */
export const aalOf = (amr: readonly string[]): Aal => (amr.some((value) => SECOND_FACTORS.has(value)) ? 'aal2' : 'aal1');

/** The stored form (sessions.amr, mfa_challenges.amr). */
export const joinAmr = (amr: readonly string[]): string => [...new Set(amr)].join(',');

/** The stored form read back; null (a session opened before migration 0024) is no method known. */
export const splitAmr = (stored: string | null | undefined): string[] => (stored ? stored.split(',') : []);
