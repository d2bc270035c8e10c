/** An answer of Gatehouse other than 2xx: its status, its `detail` sentence and the request id to quote. */
export class GatehouseError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly request_id: string | undefined;

  constructor(status: number, detail: string, requestId: string | undefined) {
    super(`${status}: ${detail}`);
    this.name = 'GatehouseError';
    this.status = status;
    this.detail = detail;
    this.request_id = requestId;
  }
}

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
