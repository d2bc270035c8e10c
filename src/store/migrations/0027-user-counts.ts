import { sql, type Kysely } from 'kysely';

// GET /v1/users answers `total` at any size (issue 45): user_counts keeps each app's number of users in 16
// slots (the user id's first hex digit, as active_user_counts does, so concurrent sign-ups of one app do not
// all wait for one counter row on PostgreSQL). Every insert and delete of a users row changes its slot in the
// same transaction (store/repos/users.ts); the total is the sum of at most 16 rows. Filled here from the rows.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_counts')
    .addColumn('app_id', 'text', (c) => c.notNull())
    .addColumn('slot', 'text', (c) => c.notNull())
    .addColumn('users', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_counts_pk', ['app_id', 'slot'])
    .execute();
  await sql`
    insert into user_counts (app_id, slot, users)
    select app_id, substr(id, 1, 1), count(*) from users group by app_id, substr(id, 1, 1)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('user_counts').execute();
}
