// @gatehouse/errors: the one GatehouseError of @gatehouse/client and @gatehouse/server (each re-exports it), so
// an SDK's error is the same class whichever SDK threw it. Runtime code of its own, unlike @gatehouse/api-types
// (types only), and no other dependency: the client need not pull the server's, nor the server the browser's.
import type { ErrorCode, GatehouseErrorFields } from '@gatehouse/api-types';

// The brand `isGatehouseError` checks. Symbol.for is one symbol per JavaScript realm, whichever copy of this
// module made the error: `instanceof` fails across two bundled copies, the brand does not.
const BRAND = Symbol.for('gatehouse.error');

/**
 * An answer of Gatehouse other than 2xx: its status, its `code` (docs/api.md, "Error codes": branch on it),
 * its `detail` sentence and the request id to quote. `status` is 0 (code `network_error`) when Gatehouse
 * could not be reached at all.
 */
export class GatehouseError extends Error implements GatehouseErrorFields {
  readonly status: number;
  readonly code: ErrorCode;
  readonly detail: string;
  readonly requestId: string | undefined;
  /** Seconds to wait before sending the same request again (429 and 503 carry it). */
  readonly retryAfter: number | undefined;
  /**
   * The answer's body, as @gatehouse/server's admin client keeps it; for `mfa_required`, the sign-in's answer
   * (`mfa_token`, `factors`, `expires_at`) to finish with `POST /v1/mfa/verify`. @gatehouse/client leaves it
   * undefined (its MfaRequiredError names those fields).
   */
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

/** Whether `error` is a GatehouseError of any copy of @gatehouse/errors (so of @gatehouse/client or @gatehouse/server). */
export function isGatehouseError(error: unknown): error is GatehouseError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}
