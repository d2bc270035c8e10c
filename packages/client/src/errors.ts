import type { ErrorCode } from '@gatehouse/api-types';
// GatehouseError is @gatehouse/errors', the one class @gatehouse/server throws too; this module makes the
// client's from what fetch gives.
import { GatehouseError } from '@gatehouse/errors';

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
  return new GatehouseError(status, code, detail, {
    requestId: header('x-request-id') ?? undefined,
    retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  });
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
    super(200, 'mfa_required', 'a second factor is required to finish signing in', { requestId });
    this.name = 'MfaRequiredError';
    this.mfaToken = answer.mfa_token;
    this.factors = answer.factors;
    this.expiresAt = answer.expires_at;
  }
}
