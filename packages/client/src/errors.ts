import type { ErrorCode, GatehouseErrorFields } from '@gatehouse/api-types';

// The brand `isGatehouseError` checks. Symbol.for is one symbol per JavaScript realm, whichever copy of
// which SDK made the error: `instanceof` fails across two bundled copies, the brand does not.
// @gatehouse/server's GatehouseError carries the same brand.
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

  constructor(status: number, code: ErrorCode, detail: string, requestId?: string, retryAfter?: number) {
    super(`${status} ${code}: ${detail}`);
    this.name = 'GatehouseError';
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.requestId = requestId;
    this.retryAfter = retryAfter;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** Whether `error` is a GatehouseError of any copy of @gatehouse/client or @gatehouse/server. */
export function isGatehouseError(error: unknown): error is GatehouseError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}

/**
 * Gatehouse could not be reached (status 0). A page cannot tell a server that is down from a CORS refusal
 * (the browser hides which), so in a browser the sentence names both, with the page's own origin: the
 * one to put on the app's allow-list.
 */
export function networkError(message: string, url?: string): GatehouseError {
  const at = url ? ` at ${url}` : '';
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  if (!origin || origin === 'null') return new GatehouseError(0, 'network_error', `could not reach Gatehouse${at}: ${message}`);
  return new GatehouseError(
    0,
    'network_error',
    `could not reach Gatehouse${at} (${message}): either it is not running there, or this page's origin ${origin} is not on the app's ` +
      `allow-list (gatehouse app update APP_ID --add-allowed-origin ${origin}); the browser does not say which`,
  );
}

/** The error for an answer, from its status, its `{detail, code}` body (when it has one) and its headers. */
export function errorFrom(status: number, body: unknown, header: (name: string) => string | null): GatehouseError {
  const fields = (body ?? {}) as { detail?: unknown; code?: unknown };
  const detail = typeof fields.detail === 'string' ? fields.detail : `HTTP ${status}`;
  // A proxy's own error page has no code: name it by status, as the server names its own.
  const code = typeof fields.code === 'string' ? (fields.code as ErrorCode) : status >= 500 ? 'internal' : 'bad_request';
  const retryAfter = Number(header('retry-after'));
  return new GatehouseError(status, code, detail, header('x-request-id') ?? undefined, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
}

/** A second factor the account asks for, as a sign-in's answer names it. */
export interface MfaFactor {
  factor_id: string;
  type: 'totp' | 'webauthn';
  friendly_name?: string | null;
}

/**
 * The first factor was right and the account has a second one (docs/mfa.md): no session yet. Finish with
 * `client.auth.verifyMfa({ mfaToken, code })` (or `recoveryCode`) within 5 minutes; nothing was stored.
 * A GatehouseError of code `mfa_required` (status 200: the sign-in itself succeeded), so code that branches
 * on `error.code` sees it beside `invalid_credentials` and `email_not_verified`.
 */
export class MfaRequiredError extends GatehouseError {
  readonly mfaToken: string;
  readonly factors: MfaFactor[];
  readonly expiresAt: string;

  constructor(answer: { mfa_token: string; factors: MfaFactor[]; expires_at: string }, requestId?: string) {
    super(200, 'mfa_required', 'a second factor is required to finish signing in', requestId);
    this.name = 'MfaRequiredError';
    this.mfaToken = answer.mfa_token;
    this.factors = answer.factors;
    this.expiresAt = answer.expires_at;
  }
}
