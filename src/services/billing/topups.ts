import { addSeconds, iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import { ApiError, badRequest, notFound } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import { insertTopup, findTopup, settleTopup } from '../../store/repos/billing-topups.js';
import { insertDonationChallengeUse } from '../../store/repos/donation-challenges.js';
import { isUniqueViolation } from '../../store/dialect.js';
import { inTransaction } from '../../store/transaction.js';
import type { TopupRow } from '../../store/types.js';
import type { BillingDeps } from './account.js';
import { postLedgerEntry } from './ledger.js';
import { centsToUsd } from './money.js';

export interface Topup {
  payment_id: string;
  status: TopupRow['status'];
  amount_usd: number;
  method: 'crypto';
  chain: string;
  pay_to: { address: string; amount: string };
  challenge_id: string;
  expires_at: string;
  created_at: string;
}

const toTopup = (row: TopupRow): Topup => ({
  payment_id: row.id,
  status: row.status,
  amount_usd: centsToUsd(row.amount_cents),
  method: row.method,
  chain: row.chain,
  pay_to: { address: row.pay_address, amount: row.pay_amount },
  challenge_id: row.challenge_id,
  expires_at: row.expires_at,
  created_at: row.created_at,
});

/**
 * Creates a crypto top-up: a challenge at the provider (502 when it fails, nothing written), then the
 * top-up row and the challenge's once-only mark in one transaction, so the same challenge can never pay
 * for a bot sign-up as well.
 */
export async function createTopup(deps: BillingDeps, app: Application, input: { amountCents: number; chain?: string }): Promise<Topup> {
  const chain = input.chain ?? deps.config.billingChains[0];
  if (!deps.config.billingChains.includes(chain)) {
    throw badRequest(`chain must be one of ${deps.config.billingChains.join(', ')}`);
  }
  const challenge = await deps.confirmations.createChallenge(chain, centsToUsd(input.amountCents));
  const now = iso(deps.clock.now());
  const row: TopupRow = {
    id: newUuid(),
    tenant_id: app.tenantId,
    app_id: app.id,
    challenge_id: challenge.challengeId,
    amount_cents: input.amountCents,
    method: 'crypto',
    chain,
    pay_address: challenge.address,
    pay_amount: challenge.amount,
    status: 'pending',
    expires_at: Number.isNaN(Date.parse(challenge.expiresAt)) ? iso(addSeconds(deps.clock.now(), 3600)) : iso(new Date(challenge.expiresAt)),
    created_at: now,
    updated_at: now,
  };
  try {
    await inTransaction(deps.db, async (trx) => {
      await insertDonationChallengeUse(trx, app.id, challenge.challengeId, 'topup', now);
      await insertTopup(trx, row);
    });
  } catch (error) {
    // A fresh challenge carrying an id already spent is the provider misbehaving: nothing was written.
    if (isUniqueViolation(error)) throw new ApiError(502, 'provider_unreachable', 'the donation-confirmation provider reused a challenge id', { cause: error });
    throw error;
  }
  return toTopup(row);
}

/**
 * The top-up, after asking the provider about a pending one. CONFIRMED credits the ledger exactly once:
 * the conditional pending → confirmed change and the ledger row are one transaction, and the ledger's unique
 * payment_id backs it up, so any number of requests on any number of nodes make one credit. The provider
 * failing (502) changes nothing. Another tenant's payment id is 404.
 */
export async function readTopup(deps: BillingDeps, tenantId: string, paymentId: string): Promise<Topup> {
  const row = await findTopup(deps.db, tenantId, paymentId);
  if (!row) throw notFound('payment not found');
  if (row.status !== 'pending') return toTopup(row);

  let status;
  try {
    status = (await deps.confirmations.getChallenge(row.challenge_id)).status;
  } catch (error) {
    // The provider forgetting a challenge it made is the provider failing, not an unknown payment.
    if (error instanceof ApiError && error.status === 404) throw new ApiError(502, 'provider_unreachable', 'the donation-confirmation provider does not know this payment');
    throw error;
  }
  if (status === 'PENDING') return toTopup(row);

  const now = iso(deps.clock.now());
  await inTransaction(deps.db, async (trx) => {
    if (status === 'EXPIRED') {
      await settleTopup(trx, tenantId, paymentId, 'expired', now);
      return;
    }
    if (!(await settleTopup(trx, tenantId, paymentId, 'confirmed', now))) return; // another request credited it
    await postLedgerEntry(trx, {
      tenantId,
      type: 'topup',
      amountCents: row.amount_cents,
      description: `Crypto top-up on ${row.chain}`,
      paymentId,
      now,
    });
  });
  const settled = await findTopup(deps.db, tenantId, paymentId);
  return toTopup(settled ?? row);
}
