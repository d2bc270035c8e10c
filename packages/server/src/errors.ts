/** Why a token was refused: missing, malformed, expired, signed by no key of the app, or for another app. */
export class InvalidTokenError extends Error {
  readonly status = 401;
  readonly code: 'missing' | 'invalid' | 'expired';

  constructor(code: 'missing' | 'invalid' | 'expired', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidTokenError';
    this.code = code;
  }
}
