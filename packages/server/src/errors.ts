import type { ErrorCode, GatehouseErrorFields } from '@gatehouse/api-types';

// The brand `isGatehouseError` checks, the same Symbol.for key as @gatehouse/client's: an error of either
// SDK, of any bundled copy, passes the guard (`instanceof` holds within one copy only).
const BRAND = Symbol.for('gatehouse.error');

/**
 * An answer of Gatehouse other than 2xx: its status, its `code` (docs/api.md, "Error codes": branch on it),
 * its `detail` sentence and the request id to quote. The same fields and brand as @gatehouse/client's.
 */
export class GatehouseError extends Error implements GatehouseErrorFields {
  readonly status: number;
  readonly code: ErrorCode;
  readonly detail: string;
  readonly requestId: string | undefined;
  /** Seconds to wait before sending the same request again (429 and 503 carry it). */
  readonly retryAfter: number | undefined;
  /** For `mfa_required`: the sign-in's answer (`mfa_token`, `factors`, `expires_at`) to finish with `POST /v1/mfa/verify`. */
  readonly body: unknown;

  constructor(status: number, code: ErrorCode, detail: string, options: { requestId?: string; retryAfter?: number; body?: unknown } = {}) {
    super(`${status} ${code}: ${detail}`);
    this.name = 'GatehouseError';
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.requestId = options.requestId;
    this.retryAfter = options.retryAfter;
    this.body = options.body;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** Whether `error` is a GatehouseError of any copy of @gatehouse/server or @gatehouse/client. */
export function isGatehouseError(error: unknown): error is GatehouseError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
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
