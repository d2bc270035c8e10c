import { addSeconds, iso } from '../../clock.js';
import { open, seal } from '../../crypto/envelope.js';
import { newUuid, sha256Hex } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import type { Mail } from '../../mail/mailer.js';
import { insertOutboxMail } from '../../store/repos/mail-outbox.js';
import { normalizeEmail } from '../../store/repos/users.js';

export type OutboxDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'masterKey'>;

/** Binds a sealed message to its row: a ciphertext copied into another row does not open. */
export const outboxMailBinding = (id: string) => `mail_outbox:${id}`;

/**
 * What finds an app's queued mail to an address (a user's deletion purges it). A plain hash: the users
 * table holds the same addresses in clear, so a key would hide nothing more, and it survives a rotation of
 * MASTER_KEY (which re-seals the messages).
 */
export const recipientHash = (appId: string, address: string) => sha256Hex(`${appId}:${normalizeEmail(address)}`);

/**
 * Queues `mail` in the outbox. Call it with the transaction that writes what the email announces (the
 * user, the challenge): both commit or neither does, and the request never waits on the mail relay.
 * The mail worker sends it (services/mail/worker.ts); wake it after the commit to send at once.
 */
export async function enqueueMail(deps: OutboxDeps, appId: string, mail: Mail): Promise<string> {
  const now = deps.clock.now();
  const id = newUuid();
  await insertOutboxMail(deps.db, {
    id,
    app_id: appId,
    sealed: seal(deps.masterKey, JSON.stringify(mail), outboxMailBinding(id)),
    attempts: 0,
    created_at: iso(now),
    next_attempt_at: iso(now),
    give_up_at: iso(addSeconds(now, deps.config.mailGiveUpSeconds)),
    lease_holder: null,
    lease_until: null,
    last_error: null,
    gave_up_at: null,
    recipient_hash: recipientHash(appId, mail.to),
  });
  return id;
}

/** Opens a queued message (with MASTER_KEY, or MASTER_KEY_PREVIOUS during a rotation); throws when neither key or the row fits. */
export function openOutboxMail(masterKeys: Buffer | readonly Buffer[], id: string, sealed: string): Mail {
  return JSON.parse(open(masterKeys, sealed, outboxMailBinding(id))) as Mail;
}
