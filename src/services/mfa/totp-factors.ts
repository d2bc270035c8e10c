import { seal } from '../../crypto/envelope.js';
import { newUuid } from '../../crypto/ids.js';
import type { Db } from '../../store/db.js';
import * as factors from '../../store/repos/mfa-factors.js';
import { markPasswordForSecondFactor } from '../../store/repos/password-marks.js';

/** What the seal of a TOTP secret is bound to: a secret copied to another factor row will not open. */
export const totpSecretBinding = (factorId: string) => `mfa_factor:${factorId}`;

export interface NewTotpFactor {
  appId: string;
  userId: string;
  /** The base32 secret, sealed under the master key bound to the new factor's id. */
  secret: string;
  /** `unverified` for an enrollment its first code confirms; `verified` for an imported authenticator. */
  status: 'unverified' | 'verified';
  friendlyName: string | null;
  now: string;
}

/** Writes a TOTP factor (an enrollment's or an import's) and answers its id. */
export async function insertTotpFactor(db: Db, masterKey: Buffer, factor: NewTotpFactor): Promise<string> {
  const id = newUuid();
  await factors.insertFactor(db, {
    id,
    app_id: factor.appId,
    user_id: factor.userId,
    type: 'totp',
    status: factor.status,
    friendly_name: factor.friendlyName,
    secret_sealed: seal(masterKey, factor.secret, totpSecretBinding(id)),
    last_step: null,
    credential_id: null,
    public_key: null,
    sign_count: null,
    transports: null,
    created_at: factor.now,
    updated_at: factor.now,
    last_used_at: null,
  });
  // An imported, verified authenticator: release 02c1d09's password sign-in fails closed (docs/upgrading.md).
  if (factor.status === 'verified') await markPasswordForSecondFactor(db, factor.appId, factor.userId);
  return id;
}
