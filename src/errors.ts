/**
 * Stable, snake_case error codes: the one list every ApiError draws from, sent as `code` beside `detail`
 * on every error body. A published code keeps its meaning; each one is documented in docs/api.md (a test
 * holds the table to this list).
 */
export const ERROR_CODES = [
  'validation_failed',
  'not_found',
  'route_not_found',
  'body_too_large',
  'unsupported_media_type',
  'unauthenticated',
  'forbidden',
  'cross_tenant',
  'conflict',
  'user_exists',
  'email_taken',
  'invalid_credentials',
  'email_not_verified',
  'invalid_token',
  'invalid_code',
  'invalid_redirect',
  'hashcash_required',
  'hashcash_invalid',
  'hashcash_expired',
  'passwords_disabled',
  'rate_limited',
  'provider_unreachable',
  'challenge_not_confirmed',
  'challenge_used',
  'key_registered',
  'invalid_signature',
  'payment_required',
  'database_unavailable',
  'blob_store_unavailable',
  'mail_failed',
  'internal',
  'provider_not_configured',
  'invalid_state',
  'table_storage_exceeded',
  'row_too_large',
  'shutting_down',
  'storage_limit_exceeded',
  'length_required',
  'range_not_satisfiable',
  'reauthentication_required',
  'self_delete_disabled',
  'invalid_mfa_token',
  'aal2_required',
  'mfa_enrollment_required',
  'invalid_passkey',
  'bad_request',
  'malformed_request',
  'uri_too_long',
  'request_timeout',
  'headers_too_large',
  'origin_not_allowed',
  'mfa_required',
  'unknown_field',
  'metadata_too_large',
  'user_banned',
  'provider_limit_reached',
  'invalid_issuer',
  'invalid_password_hash',
  'invalid_totp_secret',
  'external_id_taken',
  'identity_taken',
  'slug_taken',
  'last_owner',
  'member_limit_reached',
  'organization_limit_reached',
  'already_member',
  'invalid_invitation',
  'invitation_email_mismatch',
  'role_in_use',
  'webhook_url_refused',
  'webhook_limit_reached',
  'invalid_locale',
  'invalid_email_sender',
  'invalid_cookie_domain',
  'invalid_domain',
  'operator_only_setting',
  'invalid_email_template',
  'app_id_required',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The one error type. `detail` is shown to the client (for status < 500 only);
 * `cause` stays in the log line and never reaches the wire.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly detail: string;
  readonly headers: Record<string, string>;
  /**
   * A dependency is down (database, blob store) or the node is shutting down: every request fails alike
   * while it lasts, so the error is logged as one rate-limited warning per cause, not one error per request.
   */
  readonly outage: boolean;

  constructor(status: number, code: ErrorCode, detail: string, options: { cause?: unknown; headers?: Record<string, string>; outage?: boolean } = {}) {
    super(detail, { cause: options.cause });
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.headers = options.headers ?? {};
    this.outage = options.outage ?? false;
  }
}

export const badRequest = (detail: string, code: ErrorCode = 'validation_failed') => new ApiError(400, code, detail);
export const unauthorized = (detail: string, code: ErrorCode = 'unauthenticated') => new ApiError(401, code, detail);
export const forbidden = (detail: string, code: ErrorCode = 'forbidden') => new ApiError(403, code, detail);
export const notFound = (detail: string) => new ApiError(404, 'not_found', detail);
export const conflict = (detail: string, code: ErrorCode = 'conflict') => new ApiError(409, code, detail);
