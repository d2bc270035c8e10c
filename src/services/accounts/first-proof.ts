import type { Db } from '../../store/db.js';
import * as identities from '../../store/repos/oauth-identities.js';
import { deleteUserSecondFactors } from '../../store/repos/user-erasure.js';

// The first proof of an address (docs/security.md, pre-hijacking): whoever held an unverified account
// before its owner proved the inbox (a sign-up with someone else's email, a user made by POST /v1/users,
// an SSO source's unverified address) may not be the owner. What they could have added while the address
// was unproven goes in the transaction of the proof, beside the password and sessions each path drops.

/**
 * Removes the ways in that an unproven address's earlier holder may have left: OAuth identities linked
 * to it (docs/oauth.md), second factors (a passkey is itself a way in; a TOTP factor would make
 * every sign-in of the owner ask for the holder's code), recovery codes, and MFA and passkey challenges
 * in flight. `trx`: the transaction that marks the address verified.
 */
export async function forgetEarlierHolder(trx: Db, appId: string, userId: string): Promise<void> {
  await identities.deleteUserOAuthIdentities(trx, appId, userId);
  await deleteUserSecondFactors(trx, appId, userId);
}
