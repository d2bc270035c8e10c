import { iso, type Clock } from '../../clock.js';
import { open } from '../../crypto/envelope.js';
import { safeEqual } from '../../crypto/ids.js';
import { masterKeyCheck } from '../../crypto/master-key.js';
import { signingKeyBinding } from '../../crypto/signing-keys.js';
import type { Db } from '../../store/db.js';
import * as sealedSecrets from '../../store/repos/sealed-secrets.js';
import * as settings from '../../store/repos/settings.js';

const SETTING = 'master_key_check';

/** A process's MASTER_KEY (and MASTER_KEY_PREVIOUS) is not the one this database's secrets are sealed with. */
export class MasterKeyMismatch extends Error {
  constructor() {
    super('MASTER_KEY does not match this database (nor does MASTER_KEY_PREVIOUS): start with the key its secrets were sealed with (docs/operations.md, "Rotating the master key")');
  }
}

type CheckDeps = { db: Db; masterKeys: readonly Buffer[]; clock: Clock };

/**
 * Refuses to go on (MasterKeyMismatch) unless MASTER_KEY or MASTER_KEY_PREVIOUS is this database's key,
 * which `serve` and every command check before they write: a wrong key would otherwise seal new signing
 * keys that no node can open, and every sign-in of that app would fail until someone noticed. The first
 * run stores the check value; on a database from before the check, only a key that opens its sealed
 * signing keys may store it.
 */
export async function checkMasterKey(deps: CheckDeps): Promise<void> {
  const stored = await settings.findSetting(deps.db, SETTING);
  if (stored !== undefined) {
    if (deps.masterKeys.some((key) => safeEqual(masterKeyCheck(key), stored))) return;
    throw new MasterKeyMismatch();
  }
  const key = await keyOfSealedSecrets(deps);
  if (!key) throw new MasterKeyMismatch();
  // Another process may store at the same moment; whichever wrote first, the key must match it.
  if (await settings.insertSettingIfAbsent(deps.db, SETTING, masterKeyCheck(key), iso(deps.clock.now()))) return;
  return checkMasterKey(deps);
}

/** After a master-key rotation: the database's key is now MASTER_KEY alone. */
export async function recordMasterKey(deps: { db: Db; masterKey: Buffer; clock: Clock }): Promise<void> {
  await settings.upsertSetting(deps.db, SETTING, masterKeyCheck(deps.masterKey), iso(deps.clock.now()));
}

/**
 * Which of the keys opens what the database sealed already (its first signing key): the current key when
 * nothing is sealed yet (a new database), undefined when neither opens it.
 */
async function keyOfSealedSecrets(deps: CheckDeps): Promise<Buffer | undefined> {
  const [first] = await sealedSecrets.pageSigningKeys(deps.db, undefined, 1);
  if (!first) return deps.masterKeys[0];
  return deps.masterKeys.find((key) => {
    try {
      open(key, first.private_key_sealed, signingKeyBinding(first.kid));
      return true;
    } catch {
      return false;
    }
  });
}
