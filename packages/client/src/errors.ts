/**
 * An answer of Gatehouse other than 2xx: its status, its `detail` sentence and the request id to quote.
 * The same class as @gatehouse/server's. `status` is 0 when Gatehouse could not be reached at all.
 */
export class GatehouseError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly request_id: string | undefined;
  /** Seconds to wait before sending the same request again (429 and 503 carry it). */
  readonly retry_after: number | undefined;

  constructor(status: number, detail: string, requestId: string | undefined, retryAfter?: number) {
    super(`${status}: ${detail}`);
    this.name = 'GatehouseError';
    this.status = status;
    this.detail = detail;
    this.request_id = requestId;
    this.retry_after = retryAfter;
  }
}

/** The error for an answer, from its status, its `{detail}` body (when it has one) and its headers. */
export function errorFrom(status: number, body: unknown, header: (name: string) => string | null): GatehouseError {
  const detail = typeof (body as { detail?: unknown } | null)?.detail === 'string' ? (body as { detail: string }).detail : `HTTP ${status}`;
  const retryAfter = Number(header('retry-after'));
  return new GatehouseError(status, detail, header('x-request-id') ?? undefined, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
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
 */
export class MfaRequiredError extends Error {
  readonly mfaToken: string;
  readonly factors: MfaFactor[];
  readonly expiresAt: string;

  constructor(answer: { mfa_token: string; factors: MfaFactor[]; expires_at: string }) {
    super('a second factor is required to finish signing in');
    this.name = 'MfaRequiredError';
    this.mfaToken = answer.mfa_token;
    this.factors = answer.factors;
    this.expiresAt = answer.expires_at;
  }
}
