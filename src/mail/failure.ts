import { ApiError } from '../errors.js';

/**
 * What every transport throws when an email could not be handed over: a 503 the client can retry, with the
 * transport's error kept as the cause (the error plugin logs it beside the request id; it never reaches the wire).
 */
export function mailFailed(cause: unknown): ApiError {
  return new ApiError(503, 'mail_failed', 'could not send the email; try again later', { cause });
}
