import type { Kysely } from 'kysely';

// The transactional email outbox: a row is written in the same transaction as the user or challenge it
// announces, and a mail worker on every node sends it (services/mail/worker.ts).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull())
    // The message (recipient, subject, text, HTML) as JSON sealed with MASTER_KEY: it holds codes and links.
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('give_up_at', 'text', (c) => c.notNull())
    // The node sending it now and until when: a node killed mid-send leaves a lease that simply runs out.
    .addColumn('lease_holder', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('gave_up_at', 'text')
    .execute();
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['gave_up_at', 'next_attempt_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mail_outbox').execute();
}
