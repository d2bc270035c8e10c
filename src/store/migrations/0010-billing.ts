import type { Kysely } from 'kysely';

// Tenant billing: one account row per tenant (balance and pause state, read by the guards' app lookup),
// the append-only ledger, crypto top-ups and the metering charges. Money is integer cents.

export async function up(db: Kysely<any>): Promise<void> {
  // Created on a tenant's first ledger write; a tenant without one has balance 0 and is not paused.
  await db.schema
    .createTable('billing_accounts')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id'))
    .addColumn('balance_cents', 'bigint', (c) => c.notNull())
    // 1 while balance_cents < 0: set in the same UPDATE that moves the balance.
    .addColumn('paused', 'integer', (c) => c.notNull())
    // Number of ledger rows: each write takes the next one under the account row's lock.
    .addColumn('ledger_seq', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('billing_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('balance_after_cents', 'bigint', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('billing_ledger_tenant_seq', ['tenant_id', 'seq'])
    // A top-up is credited at most once, whatever races: the second insert fails.
    .addUniqueConstraint('billing_ledger_payment', ['payment_id'])
    .execute();

  await db.schema
    .createTable('billing_topups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('challenge_id', 'text', (c) => c.notNull().unique())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('chain', 'text', (c) => c.notNull())
    .addColumn('pay_address', 'text', (c) => c.notNull())
    .addColumn('pay_amount', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('billing_topups_tenant').on('billing_topups').columns(['tenant_id', 'created_at']).execute();

  // One charge per (tenant, period, item): the primary key is the exactly-once rule of metering.
  await db.schema
    .createTable('billing_usage_charges')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('item', 'text', (c) => c.notNull())
    .addColumn('quantity', 'bigint', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('transaction_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('billing_usage_charges_pk', ['tenant_id', 'period', 'item'])
    .execute();

  // Metering counts sessions started and refresh tokens issued in a period.
  await db.schema.createIndex('sessions_created').on('sessions').columns(['created_at']).execute();
  await db.schema.createIndex('refresh_tokens_created').on('refresh_tokens').columns(['created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('refresh_tokens_created').execute();
  await db.schema.dropIndex('sessions_created').execute();
  for (const table of ['billing_usage_charges', 'billing_topups', 'billing_ledger', 'billing_accounts']) {
    await db.schema.dropTable(table).execute();
  }
}
