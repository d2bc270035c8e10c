// The large database of bench/data-scale.mjs, written by SQL inside the database (recursive CTEs on SQLite,
// generate_series on PostgreSQL), never through the API. Every row is a copy of a row the service wrote
// itself (the bench app, its keys, the bench user and its session, made through the CLI and the API
// beforehand), with new ids and the fields that tell rows apart, so every column the migrations added is
// filled as the service fills it. The custom tables' rows go into the service's own `t_<id>` / `c_<id>`.
import SQLite from 'better-sqlite3';
import pg from 'pg';

const hex = (uuid) => uuid.replace(/-/g, '');

/** What differs between the two databases, as SQL text. */
const DIALECTS = {
  sqlite: {
    series: (count) => `with recursive s(n) as (select 1 union all select n + 1 from s where n < ${count})`,
    uuid: () =>
      "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))",
    hexText: (bytes) => `lower(hex(randomblob(${bytes})))`,
    isoFromMs: (ms) => `strftime('%Y-%m-%dT%H:%M:%fZ', (${ms}) / 1000.0, 'unixepoch')`,
    chance: (p) => `(abs(random()) % 1000000) < ${Math.round(p * 1e6)}`,
  },
  postgres: {
    series: (count) => `with s(n) as (select generate_series(1::bigint, ${count}))`, // bigint: n * 7919 passes 2^31
    uuid: () => 'gen_random_uuid()::text',
    hexText: (bytes) => `substr(md5(random()::text) || md5(random()::text), 1, ${2 * bytes})`,
    isoFromMs: (ms) => `to_char(to_timestamp((${ms}) / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    chance: (p) => `random() < ${p}`,
  },
};

/** A connection with `run(sql, params)` (`?` placeholders on both), `all(sql, params)`, `columns(table)`, `close()`. */
async function connect(kind, databaseUrl) {
  if (kind === 'sqlite') {
    const db = new SQLite(databaseUrl.slice('sqlite:'.length));
    db.pragma('busy_timeout = 15000');
    // A bulk load into a file nobody else has open: no journal on disk (WAL again when done), no fsync, no foreign-key lookups (every row copies a valid one), and a page cache
    // that holds the indexes being written (random UUID keys land all over them).
    // Out of WAL first (SQLite leaves WAL only for a rollback journal), then the journal in memory
    // (better-sqlite3's defensive mode refuses `off`).
    db.pragma('journal_mode = delete');
    db.pragma('journal_mode = memory');
    db.pragma('synchronous = off');
    db.pragma('foreign_keys = off');
    db.pragma('temp_store = memory');
    db.pragma('cache_size = -3000000');
    return {
      kind,
      run: async (text, params = []) => db.prepare(text).run(...params).changes,
      all: async (text, params = []) => db.prepare(text).all(...params),
      columns: async (table) => db.prepare(`select name from pragma_table_info(?)`).all(table).map((c) => c.name),
      transaction: async (work) => {
        db.exec('begin immediate');
        try {
          await work();
          db.exec('commit');
        } catch (error) {
          db.exec('rollback');
          throw error;
        }
      },
      close: async () => {
        db.pragma('journal_mode = wal');
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // A bulk load: no wait for each commit's WAL flush, and room to sort each index rebuilt after it.
  await client.query('set synchronous_commit = off');
  await client.query(`set maintenance_work_mem = '512MB'`);
  // No foreign-key lookups (every row copies a valid one), as on SQLite: the service has no triggers of its
  // own, so this turns off only the foreign keys' (needs a superuser, as the bench's PostgreSQL URL is).
  await client.query('set session_replication_role = replica');
  const numbered = (text) => {
    let i = 0;
    return text.replace(/\?/g, () => `$${++i}`);
  };
  return {
    kind,
    run: async (text, params = []) => (await client.query(numbered(text), params)).rowCount,
    all: async (text, params = []) => (await client.query(numbered(text), params)).rows,
    columns: async (table) =>
      (await client.query('select column_name from information_schema.columns where table_schema = current_schema() and table_name = $1 order by ordinal_position', [table])).rows.map(
        (r) => r.column_name,
      ),
    transaction: async (work) => {
      await client.query('begin');
      try {
        await work();
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
    },
    close: () => client.end(),
  };
}

/**
 * `insert into table` one copy of the template row (`t`, a row of the same table picked by `where`) per row of
 * `source` (SQL text after FROM, joined with the template), each column taken from `overrides` (SQL over the
 * source and `t`) or else from the template.
 */
async function copies(conn, table, { prefix = '', source, where, params = [], filter = '', overrides }) {
  const columns = await conn.columns(table);
  const unknown = Object.keys(overrides).filter((c) => !columns.includes(c));
  if (unknown.length) throw new Error(`${table} has no column ${unknown.join(', ')}`);
  const select = columns.map((c) => overrides[c] ?? `t.${c}`);
  // In primary-key order (the first column of every table copied here), so the table's own b-tree and its
  // key's index are appended to rather than written all over.
  return conn.run(`${prefix} insert into ${table} (${columns.join(', ')}) select * from (select ${select.join(', ')} from ${source}, (select * from ${table} where ${where}) t ${filter}) c order by 1`, params);
}

/**
 * Runs `work` with the table's secondary indexes (those the migrations or the service created by name)
 * dropped, then creates them again with their own DDL: one sorted build each instead of a million random
 * inserts. On PostgreSQL every index but the ones behind constraints (the primary key, unique constraints)
 * goes, and comes back by its `pg_indexes` definition.
 */
async function withoutIndexes(conn, table, work) {
  const indexes =
    conn.kind === 'sqlite'
      ? await conn.all(`select name, sql from sqlite_master where type = 'index' and tbl_name = ? and sql is not null`, [table])
      : await conn.all(
          `select indexname as name, indexdef as sql from pg_indexes where schemaname = current_schema() and tablename = ? and indexname not in (select conname from pg_constraint where conrelid = ?::regclass)`,
          [table, table],
        );
  for (const index of indexes) await conn.run(`drop index ${index.name}`);
  await work();
  for (const index of indexes) await conn.run(index.sql);
}

/**
 * Fills the database around the fixtures: `apps` apps in all (10 a tenant, their keys and signing keys
 * copied from the bench app's), `users` users of the bench app (the bench user's password, so any of them
 * can sign in), one session each (1 in 10 dead for over a year, for the clean-up to find), the monthly
 * active users those sessions make, `rows` rows in the `scores` table and `sparseRows` in `sparse`.
 * Returns the seconds each step took (wall, and CPU on SQLite).
 * @param {{ db: 'sqlite' | 'postgres', databaseUrl: string, fx: any, apps: number, users: number, rows: number, sparseRows: number, now: Date }} options
 */
export async function fillDatabase({ db, databaseUrl, fx, apps, users, rows, sparseRows, now }) {
  const D = DIALECTS[db];
  const conn = await connect(db, databaseUrl);
  const seconds = {};
  const cpuSeconds = {};
  // Wall time, and on SQLite (whose work runs in this process) the CPU time: on a shared machine the wall
  // time stretches with the queue for the cores, the CPU time does not.
  const step = async (name, work) => {
    const started = performance.now();
    const cpu = process.cpuUsage();
    await conn.transaction(work);
    seconds[name] = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    cpuSeconds[name] = (used.user + used.system) / 1e6;
  };
  const nowMs = now.getTime();
  const day = 86_400_000;
  try {
    await step('tenants and apps', async () => {
      const tenants = Math.max(0, Math.ceil(apps / 10) - 1);
      await copies(conn, 'tenants', {
        prefix: D.series(tenants),
        source: 's',
        where: 'id = ?',
        params: [fx.tenantId],
        overrides: { id: `'ten_' || ${D.hexText(10)}`, name: `'Tenant ' || n` },
      });
      // The bench tenant first, then the others: apps n = 1.. go to tenant number n / 10 (the bench tenant
      // has the bench app and 9 more).
      await conn.run('create temporary table scale_tenants (k integer primary key, id text not null)');
      await conn.run(`insert into scale_tenants (k, id) select row_number() over (order by case when id = ? then 0 else 1 end, id) - 1, id from tenants`, [fx.tenantId]);
      await copies(conn, 'applications', {
        prefix: D.series(apps - 1),
        source: 's join scale_tenants k on k.k = s.n / 10',
        where: 'id = ?',
        params: [fx.appId],
        overrides: { id: `'app_' || ${D.hexText(10)}`, tenant_id: 'k.id', name: `'App ' || n`, domain: 'null' },
      });
      await conn.run('drop table scale_tenants');
      // Each new app gets a copy of each of the bench app's keys and signing keys, with its own hashes and kid.
      const others = `(select id as app_id from applications where id <> '${fx.appId}') a`;
      await copies(conn, 'api_keys', { source: others, where: 'app_id = ?', params: [fx.appId], overrides: { id: D.uuid(), app_id: 'a.app_id', key_hash: D.hexText(32), publishable_key: `case when t.publishable_key is null then null else 'pk_' || ${D.hexText(16)} end` } });
      await copies(conn, 'signing_keys', { source: others, where: 'app_id = ?', params: [fx.appId], overrides: { id: D.uuid(), app_id: 'a.app_id', kid: D.hexText(16) } });
    });

    await step('users', async () => {
      // Created over the year before the bench user, oldest first, 25 s apart at a million.
      const spacing = Math.max(1, Math.floor((300 * day) / users));
      await withoutIndexes(conn, 'users', () => copies(conn, 'users', {
        prefix: D.series(users - 1),
        source: 's',
        where: 'id = ?',
        params: [fx.userId],
        overrides: {
          id: D.uuid(),
          email: `'u' || n || '@scale.example'`,
          email_normalized: `'u' || n || '@scale.example'`,
          created_at: D.isoFromMs(`${nowMs - 301 * day} + n * ${spacing}`),
          updated_at: D.isoFromMs(`${nowMs - 301 * day} + n * ${spacing}`),
        },
      }));
      // The kept user count (migration 0027) that GET /v1/users answers as `total`, as the service keeps it.
      await conn.run('delete from user_counts where app_id = ?', [fx.appId]);
      await conn.run(`insert into user_counts (app_id, slot, users) select app_id, substr(id, 1, 1), count(*) from users where app_id = ? group by app_id, substr(id, 1, 1)`, [fx.appId]);
    });

    await step('sessions', async () => {
      // One session for every other user: live ones started this month (they expire in 30 days), dead ones
      // expired 400 days ago (the clean-up deletes them: 62 days' retention).
      const dead = D.chance(0.1);
      const liveStart = D.isoFromMs(`${nowMs - 60_000}`);
      const liveEnd = D.isoFromMs(`${nowMs + 30 * day}`);
      const deadStart = D.isoFromMs(`${nowMs - 430 * day}`);
      const deadEnd = D.isoFromMs(`${nowMs - 400 * day}`);
      await conn.run(`create temporary table scale_dead as select id, case when ${dead} then 1 else 0 end as dead from users where app_id = ? and id <> ?`, [fx.appId, fx.userId]);
      await withoutIndexes(conn, 'sessions', () => copies(conn, 'sessions', {
        source: 'scale_dead u',
        where: 'id = (select min(id) from sessions where user_id = ?)',
        params: [fx.userId],
        overrides: {
          id: D.uuid(),
          user_id: 'u.id',
          created_at: `case when u.dead = 1 then ${deadStart} else ${liveStart} end`,
          expires_at: `case when u.dead = 1 then ${deadEnd} else ${liveEnd} end`,
          sweep_after: `case when u.dead = 1 then ${deadEnd} else ${liveEnd} end`,
          refresh_hash: D.hexText(32),
          refreshed_month: 'null',
          prior_refreshed_month: 'null',
          rotated_at: 'null',
          prior_rotated_at: 'null',
          revoked_at: 'null',
        },
      }));
      await conn.run('drop table scale_dead');
      // The active users the sessions make, as the service records them (migration 0022's backfill, for this app).
      await conn.run(
        `insert into active_users (app_id, user_id, period) select app_id, user_id, substr(created_at, 1, 7) from sessions where app_id = ? and user_id <> ? on conflict do nothing`,
        [fx.appId, fx.userId],
      );
      await conn.run('delete from active_user_counts where app_id = ?', [fx.appId]);
      await conn.run(`insert into active_user_counts (app_id, period, slot, users) select app_id, period, substr(user_id, 1, 1), count(*) from active_users where app_id = ? group by app_id, period, substr(user_id, 1, 1)`, [fx.appId]);
    });

    // `scores`: tenth = n % 10 (a filter keeping 1 row in 10), rank = a permutation of 0..rows-1 (7919 is
    // prime to 10^k); `sparse`: flag = 1 on the 20,000 rows of highest rank only.
    const fillTable = async (table, count, values) => {
      const col = Object.fromEntries(table.columns.map((c) => [c.name, `c_${hex(c.column_id)}`]));
      const names = Object.keys(values);
      const json = `'{' || ${names.map((name) => `'"${name}":' || ${values[name].json ?? values[name].sql}`).join(` || ',' || `)} || '}'`;
      const textBytes = names.filter((name) => values[name].json).map((name) => `3 * length(${values[name].sql})`);
      const size = `length(${json}) + 500 + ${64 * names.length}${textBytes.length ? ` + ${textBytes.join(' + ')}` : ''}`;
      const created = D.isoFromMs(`${nowMs - 200 * day} + n * 1000`);
      await withoutIndexes(conn, `t_${hex(table.table_id)}`, () =>
        conn.run(
          `${D.series(count)} insert into t_${hex(table.table_id)} (row_id, user_id, created_at, updated_at, size_bytes, ${names.map((name) => col[name]).join(', ')}) select * from (select ${D.uuid()}, null, ${created}, ${created}, ${size}, ${names.map((name) => values[name].sql).join(', ')} from s) r order by 1`,
        ),
      );
      await conn.run(`update custom_table_usage set used_bytes = used_bytes + (select sum(size_bytes) from t_${hex(table.table_id)}) where app_id = ?`, [fx.appId]);
    };
    await step('rows (scores)', () =>
      fillTable(fx.tables.scores, rows, {
        tenth: { sql: 'n % 10' },
        rank: { sql: `(n * 7919) % ${rows}` },
        title: { sql: `'item ' || n`, json: `'"item ' || n || '"'` },
      }),
    );
    await step('rows (sparse)', () =>
      fillTable(fx.tables.sparse, sparseRows, {
        flag: { sql: `case when (n * 7919) % ${sparseRows} >= ${sparseRows - 20_000} then 1 else 0 end` },
        rank: { sql: `(n * 7919) % ${sparseRows}` },
      }),
    );
    if (db === 'postgres') {
      // What autovacuum would have done by the time a real database held this much: since PostgreSQL 13 it
      // vacuums a table after inserts too (autovacuum_vacuum_insert_threshold), which sets the visibility map
      // that index-only scans (an offset's walk of the users index) need, and analyzes it.
      const started = performance.now();
      await conn.run('vacuum analyze');
      seconds.analyze = (performance.now() - started) / 1000;
    }
    seconds.total = Object.values(seconds).reduce((a, b) => a + b, 0);
    cpuSeconds.total = Object.values(cpuSeconds).reduce((a, b) => a + b, 0);
    return { seconds, cpuSeconds: db === 'sqlite' ? cpuSeconds : undefined };
  } finally {
    await conn.close();
  }
}
