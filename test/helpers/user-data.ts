import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeRs256Header, signRs256Jwt } from '../../src/crypto/jws.js';
import { openPrivateKey } from '../../src/crypto/signing-keys.js';
import { queryDatabase } from './db.js';
import type { TestServer } from './server.js';

// At-rest views of one user's data, for the deletion and export tests (docs/privacy.md).

/** Every table of the database with a column that names a user (`user_id`, or `owner` for objects). */
export async function userColumns(server: TestServer): Promise<{ table: string; column: string }[]> {
  const sql = server.databaseUrl.startsWith('sqlite:')
    ? `select m.name as t, p.name as c from sqlite_master m join pragma_table_info(m.name) p where m.type = 'table' and p.name in ('user_id', 'owner')`
    : `select table_name as t, column_name as c from information_schema.columns where table_schema = 'public' and column_name in ('user_id', 'owner')`;
  return (await queryDatabase(server.databaseUrl, sql)).map((r) => ({ table: String(r.t), column: String(r.c) }));
}

/**
 * How many rows in the whole database name the user, by table (tables without any left out), the users row
 * included. Events are not counted: they stay after the user is deleted, with the user id and without
 * ip, user agent or email (docs/events.md; test/contract/events-*.test.ts check that).
 */
export async function rowsNaming(server: TestServer, userId: string): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  const checks = [...(await userColumns(server)).filter(({ table }) => table !== 'events'), { table: 'users', column: 'id' }];
  for (const { table, column } of checks) {
    const [row] = await queryDatabase(server.databaseUrl, `select count(*) as n from "${table}" where "${column}" = '${userId}'`);
    if (Number(row?.n) > 0) found[table] = (found[table] ?? 0) + Number(row!.n);
  }
  // Earlier-form refresh tokens name their session, not the user.
  const [refresh] = await queryDatabase(server.databaseUrl, `select count(*) as n from refresh_tokens r join sessions s on s.id = r.session_id where s.user_id = '${userId}'`);
  if (Number(refresh?.n) > 0) found.refresh_tokens = Number(refresh!.n);
  return found;
}

const masterKeyOf = (server: TestServer) =>
  Buffer.from(server.env.MASTER_KEY ?? readFileSync(join(server.dir, 'data/master.key'), 'utf8').trim(), 'base64');

/**
 * An access token of the app for (user, session) issued, and signed in, `ageSeconds` ago (`iat` and
 * `auth_time`) and still valid for 5 minutes,
 * signed with the app's current signing key as the server would have (a recent-sign-in rule's test: no
 * clock to move in a spawned server).
 */
export async function agedAccessToken(
  server: TestServer,
  appId: string,
  claims: { sub: string; sid: string; email: string | null; amr?: string[]; aal?: 'aal1' | 'aal2' },
  ageSeconds: number,
): Promise<string> {
  const [key] = await queryDatabase(server.databaseUrl, `select kid, private_key_sealed from signing_keys where app_id = '${appId}' and retired_at is null order by version desc limit 1`);
  const kid = String(key!.kid);
  const now = Math.floor(Date.now() / 1000);
  return signRs256Jwt(openPrivateKey(masterKeyOf(server), kid, String(key!.private_key_sealed)), encodeRs256Header(kid), {
    sid: claims.sid,
    email: claims.email,
    email_verified: true,
    ...(claims.amr ? { amr: claims.amr, aal: claims.aal ?? 'aal1' } : {}),
    iss: server.env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${server.port}`,
    aud: appId,
    sub: claims.sub,
    iat: now - ageSeconds,
    // Signed in when it was issued: the recent-sign-in rules read auth_time.
    auth_time: now - ageSeconds,
    exp: now + 300,
  });
}
