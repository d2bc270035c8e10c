import type { Deps } from '../../deps.js';

/**
 * What the account services (sign-up, sign-in, password, email) need. In a module of its own so that
 * mfa/sign-in.ts, which finishes every sign-in, can name it without importing accounts.ts back.
 */
export type AccountDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'keys' | 'mailer' | 'secrets' | 'log' | 'masterKey' | 'mailSignal'>;
