import type { Kysely } from 'kysely';
import { maskEmailsIn } from '../../observability/mask-email.js';

// Issue 45, finding 8: queued mail a user's deletion can find, and no address in clear beside it.
// - mail_outbox.recipient_hash: SHA-256 of the app id and the lower-cased recipient (services/mail/outbox.ts),
//   indexed with the app id, so deleting a user deletes the mail queued to their addresses. Rows queued by
//   an earlier release have none; they are sent, or given up and deleted by the clean-up.
// - last_error held the relay's words, which often quote the recipient: existing values are masked here,
//   new ones as they are written (services/mail/worker.ts).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mail_outbox').addColumn('recipient_hash', 'text').execute();
  await db.schema.createIndex('mail_outbox_recipient').on('mail_outbox').columns(['app_id', 'recipient_hash']).execute();
  const rows: { id: string; last_error: string }[] = await db.selectFrom('mail_outbox').select(['id', 'last_error']).where('last_error', 'is not', null).execute();
  for (const row of rows) {
    const masked = maskEmailsIn(row.last_error);
    if (masked !== row.last_error) await db.updateTable('mail_outbox').set({ last_error: masked }).where('id', '=', row.id).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('mail_outbox_recipient').execute();
  await db.schema.alterTable('mail_outbox').dropColumn('recipient_hash').execute();
}
