import type { Kysely } from 'kysely';

// Issue 45, finding 6: wrong TOTP codes are counted per factor across MFA challenges, not only per challenge.
// - mfa_factors.failed_codes: wrong codes in a row at sign-in (a verified factor's; reset by its right code).
// - mfa_factors.locked_until: from the 5th in a row, the factor refuses every code until then (1 minute,
//   doubling with each further wrong code, at most an hour: services/mfa/lockout.ts). Both change in the one
//   conditional UPDATE that counts a wrong code, so concurrent guesses on any node count exactly.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mfa_factors').addColumn('failed_codes', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('mfa_factors').addColumn('locked_until', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mfa_factors').dropColumn('locked_until').execute();
  await db.schema.alterTable('mfa_factors').dropColumn('failed_codes').execute();
}
