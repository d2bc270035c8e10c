import { open, seal } from '../../crypto/envelope.js';
import { signingKeyBinding } from '../../crypto/signing-keys.js';
import type { Deps } from '../../deps.js';
import { recordMasterKey } from './master-key-check.js';
import { outboxMailBinding } from '../mail/outbox.js';
import { verifierBinding } from '../oauth/sign-in.js';
import { providerSecretBinding } from '../oauth/providers.js';
import { totpSecretBinding } from '../mfa/totp-factors.js';
import { previousWebhookSecretBinding, webhookSecretBinding } from '../webhooks/endpoints.js';
import type { Db } from '../../store/db.js';
import * as sealedSecrets from '../../store/repos/sealed-secrets.js';

/**
 * One kind of secret sealed with MASTER_KEY: where it lives and what its seal is bound to. Every sealed
 * column of the schema is listed here, so a rotation re-seals all of them.
 */
export interface SealedSource {
  name: string;
  /**
   * Short-lived rows (queued emails, OAuth states) that a node may have sealed under a key that is gone:
   * a row opening with neither key is counted as unopenable and skipped, so it cannot stop every later
   * rotation. A long-lived secret (a signing key, a provider secret) that opens with neither stops the run.
   */
  transient?: boolean;
  /** A page of rows after `afterId` (keyset order), with the sealed text and the binding of each. */
  page(db: Db, afterId: string | undefined, limit: number): Promise<{ id: string; sealed: string; binding: string }[]>;
  /** Writes the new seal only if the row still holds `previous` (another rotation may have been first). */
  replace(db: Db, id: string, previous: string, next: string): Promise<boolean>;
}

export const SEALED_SOURCES: SealedSource[] = [
  {
    name: 'signing_keys',
    page: async (db, afterId, limit) =>
      (await sealedSecrets.pageSigningKeys(db, afterId, limit)).map((row) => ({ id: row.id, sealed: row.private_key_sealed, binding: signingKeyBinding(row.kid) })),
    replace: (db, id, previous, next) => sealedSecrets.replaceSealedSigningKey(db, id, previous, next),
  },
  {
    name: 'oauth_providers',
    page: async (db, afterId, limit) =>
      (await sealedSecrets.pageOAuthProviders(db, afterId, limit)).map((row) => ({
        id: `${row.app_id} ${row.provider}`,
        sealed: row.secret_sealed,
        binding: providerSecretBinding(row.app_id, row.provider),
      })),
    replace: (db, id, previous, next) => sealedSecrets.replaceSealedOAuthSecret(db, id, previous, next),
  },
  {
    // Queued and given-up emails hold codes and links: re-sealed so they still open once the old key is dropped.
    name: 'mail_outbox',
    transient: true,
    page: async (db, afterId, limit) =>
      (await sealedSecrets.pageOutboxMail(db, afterId, limit)).map((row) => ({ id: row.id, sealed: row.sealed, binding: outboxMailBinding(row.id) })),
    replace: (db, id, previous, next) => sealedSecrets.replaceSealedOutboxMail(db, id, previous, next),
  },
  {
    // PKCE verifiers of OAuth sign-ins in progress (10 minutes at most; re-sealed so none fails mid-flight).
    name: 'oauth_states',
    transient: true,
    page: async (db, afterId, limit) =>
      (await sealedSecrets.pageOAuthStates(db, afterId, limit)).map((row) => ({
        id: row.state_hash,
        sealed: row.code_verifier_sealed,
        binding: verifierBinding(row.state_hash),
      })),
    replace: (db, id, previous, next) => sealedSecrets.replaceSealedOAuthState(db, id, previous, next),
  },
  {
    // TOTP secrets of second factors, bound to their factor.
    name: 'mfa_factors',
    page: async (db, afterId, limit) =>
      (await sealedSecrets.pageTotpSecrets(db, afterId, limit)).map((row) => ({ id: row.id, sealed: row.secret_sealed!, binding: totpSecretBinding(row.id) })),
    replace: (db, id, previous, next) => sealedSecrets.replaceSealedTotpSecret(db, id, previous, next),
  },
  {
    // Webhook endpoints' signing secrets, and the one a rotation replaced while it still signs.
    name: 'webhook_endpoints',
    page: async (db, afterId, limit) =>
      (await sealedSecrets.pageWebhookSecrets(db, afterId, limit)).flatMap((row) => [
        { id: `${row.id} current`, sealed: row.secret_sealed, binding: webhookSecretBinding(row.id) },
        ...(row.previous_secret_sealed ? [{ id: `${row.id} previous`, sealed: row.previous_secret_sealed, binding: previousWebhookSecretBinding(row.id) }] : []),
      ]),
    replace: (db, id, previous, next) => sealedSecrets.replaceSealedWebhookSecret(db, id, previous, next),
  },
];

export interface RotationReport {
  /** Secrets re-sealed under the new key by this run. */
  resealed: number;
  /** Secrets already under the new key (sealed after it was deployed, or by an earlier, interrupted run). */
  current: number;
  /** Queued emails and OAuth states that open with neither key (sealed under a key dropped earlier): left as they are. */
  unopenable: number;
  by_source: Record<string, { resealed: number; current: number; unopenable: number }>;
}

/**
 * `gatehouse master-key rotate`: re-seals every sealed secret under MASTER_KEY, opening the old ones with
 * MASTER_KEY_PREVIOUS, in batches. Each row is replaced by a conditional write, so an interrupted run can
 * simply be started again (rows already done open with the new key and are skipped), and two runs at once
 * do no harm. Throws, naming the row, when a secret opens with neither key. Once every secret opens with
 * MASTER_KEY, the database's check value becomes MASTER_KEY's (services/apps/master-key-check.ts), so a
 * process holding only the old key is refused from then on.
 */
export async function rotateMasterKey(deps: Pick<Deps, 'db' | 'masterKey' | 'config' | 'clock'>, options: { batchSize?: number } = {}): Promise<RotationReport> {
  const previous = deps.config.previousMasterKey;
  if (!previous) throw new Error('set MASTER_KEY to the new key and MASTER_KEY_PREVIOUS to the old one');
  const batchSize = options.batchSize ?? 100;
  const report: RotationReport = { resealed: 0, current: 0, unopenable: 0, by_source: {} };
  for (const source of SEALED_SOURCES) {
    const counts = { resealed: 0, current: 0, unopenable: 0 };
    let afterId: string | undefined;
    for (;;) {
      const rows = await source.page(deps.db, afterId, batchSize);
      if (rows.length === 0) break;
      for (const row of rows) {
        if (opens(deps.masterKey, row.sealed, row.binding)) {
          counts.current += 1;
          continue;
        }
        let plaintext: string;
        try {
          plaintext = open(previous, row.sealed, row.binding);
        } catch {
          if (source.transient) {
            counts.unopenable += 1;
            continue;
          }
          throw new Error(`${source.name} ${row.id}: opens with neither MASTER_KEY nor MASTER_KEY_PREVIOUS`);
        }
        if (await source.replace(deps.db, row.id, row.sealed, seal(deps.masterKey, plaintext, row.binding))) counts.resealed += 1;
        else counts.current += 1;
      }
      afterId = rows[rows.length - 1].id;
    }
    report.by_source[source.name] = counts;
    report.resealed += counts.resealed;
    report.current += counts.current;
    report.unopenable += counts.unopenable;
  }
  await recordMasterKey(deps);
  return report;
}

function opens(key: Buffer, sealed: string, binding: string): boolean {
  try {
    open(key, sealed, binding);
    return true;
  } catch {
    return false;
  }
}
