import { ApiError, notFound } from '../errors.js';

// Client of the donation-confirmation provider (docs/bots.md): an outside HTTP service at
// CONFIRMATIONS_URL. Bot sign-up reads a challenge's status; billing top-ups create and read them.

export type DonationStatus = 'PENDING' | 'CONFIRMED' | 'EXPIRED';

export interface DonationChallenge {
  challengeId: string;
  chain: string;
  usdAmount: number;
  address: string;
  amount: string;
  status: DonationStatus;
  expiresAt: string;
}

export interface ConfirmationsClient {
  /** Creates a challenge for a donation of `usdAmount` on `chain`; 502 when the provider fails. */
  createChallenge(chain: string, usdAmount: number): Promise<DonationChallenge>;
  /** The challenge as the provider sees it now; 404 when it does not know it, 502 when it fails. */
  getChallenge(challengeId: string): Promise<DonationChallenge>;
}

/** The provider must answer within this; a hung provider must not hold a sign-up request open. */
export const PROVIDER_TIMEOUT_MS = 5_000;

const STATUSES: readonly string[] = ['PENDING', 'CONFIRMED', 'EXPIRED'];

const unreachable = (detail: string, cause?: unknown) => new ApiError(502, 'provider_unreachable', detail, { cause });

/** Checks the provider's answer field by field: a malformed answer is the provider's fault (502), never ours. */
function parseChallenge(body: unknown): DonationChallenge {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const ok =
    typeof b.challenge_id === 'string' &&
    typeof b.chain === 'string' &&
    typeof b.usd_amount === 'number' &&
    Number.isFinite(b.usd_amount) &&
    typeof b.address === 'string' &&
    (typeof b.amount === 'string' || typeof b.amount === 'number') &&
    typeof b.status === 'string' &&
    STATUSES.includes(b.status) &&
    typeof b.expires_at === 'string';
  if (!ok) throw unreachable('the donation-confirmation provider gave a malformed answer', { body });
  return {
    challengeId: b.challenge_id as string,
    chain: b.chain as string,
    usdAmount: b.usd_amount as number,
    address: b.address as string,
    amount: String(b.amount),
    status: b.status as DonationStatus,
    expiresAt: b.expires_at as string,
  };
}

/**
 * Plain data for the log line. fetch fails with a DOMException (timeout) or a TypeError whose cause has the
 * socket error code; a DOMException itself breaks the logger's redaction (its getters throw on a copy).
 */
function describeFailure(error: unknown): { name: string; message: string; code?: string } {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  return { name: String(e?.name ?? 'Error'), message: String(e?.cause?.message ?? e?.message ?? error), code: e?.cause?.code };
}

export function createConfirmationsClient(baseUrl: string | undefined, timeoutMs = PROVIDER_TIMEOUT_MS): ConfirmationsClient {
  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    if (!baseUrl) throw unreachable('the donation-confirmation provider is not configured (CONFIRMATIONS_URL)');
    let response: Response;
    let text: string;
    try {
      // The timeout covers the body too: a provider that sends headers and then stalls is as broken.
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
      text = await response.text();
    } catch (error) {
      throw unreachable('the donation-confirmation provider is unreachable', describeFailure(error));
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined; // parseChallenge reports it when a body was needed
    }
    return { status: response.status, json };
  }

  return {
    async createChallenge(chain, usdAmount) {
      const { status, json } = await call('POST', '/challenges', { chain, usd_amount: usdAmount });
      if (status !== 201 && status !== 200) throw unreachable(`the donation-confirmation provider answered ${status}`, { body: json });
      return parseChallenge(json);
    },

    async getChallenge(challengeId) {
      const { status, json } = await call('GET', `/challenges/${encodeURIComponent(challengeId)}`);
      if (status === 404) throw notFound('donation challenge not found');
      if (status !== 200) throw unreachable(`the donation-confirmation provider answered ${status}`, { body: json });
      const challenge = parseChallenge(json);
      // An answer about another challenge is as useless as no answer.
      if (challenge.challengeId.toLowerCase() !== challengeId.toLowerCase()) throw unreachable('the donation-confirmation provider answered for another challenge');
      return challenge;
    },
  };
}
