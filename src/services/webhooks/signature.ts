import { createHmac, randomBytes } from 'node:crypto';

// Standard Webhooks signatures (https://www.standardwebhooks.com): the reference verifiers (the
// standardwebhooks and svix packages) accept what this writes; the suite checks it with both.

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** `v1,<base64 HMAC-SHA256>` of `id.timestamp.body` under the secret's key (the bytes after whsec_). */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The webhook-* headers of one attempt: every secret in `secrets` signs (two during a rotation). */
export function signedHeaders(secrets: string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signature(secret, id, timestamp, body)).join(' '),
  };
}
