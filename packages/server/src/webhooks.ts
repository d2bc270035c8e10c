import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { GatehouseWebhookEvent } from './webhook-events.js';

/** A request's headers as Express (`req.headers`), Fastify, node:http or a Web `Request` (`Headers`) give them. */
export type WebhookRequestHeaders = Headers | Record<string, string | string[] | undefined>;

/** Why a webhook was refused: a header missing, a signature that no secret made, or a timestamp over 5 minutes off. */
export class InvalidWebhookError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidWebhookError';
  }
}

function header(headers: WebhookRequestHeaders, name: string): string {
  const value = headers instanceof Headers ? headers.get(name) : headers[name];
  if (Array.isArray(value)) return value[0] ?? '';
  return value ?? '';
}

/**
 * Verifies a Gatehouse webhook with the Standard Webhooks reference verifier and answers its event. `body` is
 * the raw request body, exactly as it arrived (a parsed and re-serialised JSON does not verify). `secret` is
 * the endpoint's `whsec_...`; pass two during your own rollover. Throws InvalidWebhookError.
 */
export function verifyWebhook(body: string | Uint8Array, headers: WebhookRequestHeaders, secret: string | readonly string[]): GatehouseWebhookEvent {
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const wanted = {
    'webhook-id': header(headers, 'webhook-id'),
    'webhook-timestamp': header(headers, 'webhook-timestamp'),
    'webhook-signature': header(headers, 'webhook-signature'),
  };
  let failure: unknown;
  for (const candidate of typeof secret === 'string' ? [secret] : secret) {
    try {
      return new Webhook(candidate).verify(payload, wanted) as GatehouseWebhookEvent;
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      failure = error;
    }
  }
  throw new InvalidWebhookError(failure instanceof Error ? failure.message : 'no secret given', { cause: failure });
}
