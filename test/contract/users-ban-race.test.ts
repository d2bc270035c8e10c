import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { verifiedUser } from '../helpers/accounts.js';
import { queryDatabase, TEST_DB } from '../helpers/db.js';
import { api } from '../helpers/fixtures.js';
import { useAuthServerApp } from '../helpers/private-app.js';

// docs/users.md: a ban and a sign-in racing. The session is inserted only while its user is not banned, in
// the same statement (the user's row read with a share lock on PostgreSQL), so a sign-in that read the user
// just before a ban committed can never leave a live session behind.

const { env, app } = useAuthServerApp({ RATE_LIMITS: '' });

const secret = (method: string, path: string, body?: unknown) => api(env.server, method, path, { bearer: app.secret_key, body });
const signInToken = (userId: string) => secret('POST', '/v1/sign_in_tokens', { user_id: userId });
const me = (token: string) => api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });

async function liveSessions(userId: string): Promise<number> {
  const rows = await queryDatabase(env.server.databaseUrl, `select count(*) as n from sessions where user_id = '${userId}' and revoked_at is null`);
  return Number(rows[0]!.n);
}

describe('a ban racing sign-ins', () => {
  it('concurrent sign-ins and a ban: once the ban is answered, no session of the user is live and every token answered is refused', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await verifiedUser(env, app);
      const signIns = Array.from({ length: 12 }, () => signInToken(user.userId));
      const ban = secret('PATCH', `/v1/users/${user.userId}`, { banned: true });
      const answers = await Promise.all(signIns);
      expect((await ban).status).toBe(200);
      for (const answer of answers) expect([200, 403]).toContain(answer.status);
      expect(await liveSessions(user.userId)).toBe(0);
      for (const answer of answers.filter((a) => a.status === 200)) expect((await me(answer.body.token)).status).toBe(401);
    }
  });

  it.skipIf(TEST_DB !== 'postgres')(
    'PostgreSQL: a sign-in that read the user before a ban commits waits for it, then opens nothing (403 user_banned)',
    async () => {
      const user = await verifiedUser(env, app);
      const client = new pg.Client({ connectionString: env.server.databaseUrl });
      await client.connect();
      try {
        // The ban's transaction, as PATCH /v1/users/{id} runs it, held open before its commit.
        await client.query('begin');
        await client.query(`update users set banned = 1 where id = $1`, [user.userId]);
        await client.query(`update sessions set revoked_at = $2 where user_id = $1 and revoked_at is null`, [user.userId, new Date().toISOString()]);
        const pending = signInToken(user.userId);
        // Until the ban commits, the sign-in's session insert waits for the user's row (its share lock);
        // without that lock it would answer 200 at once, with a session the ban's revoke never saw.
        let answered = false;
        void pending.then(() => (answered = true));
        const waiting = async () => {
          while (!answered) {
            const { rows } = await client.query(
              `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
            );
            if (rows[0].n > 0) return 'waiting';
            await new Promise((r) => setTimeout(r, 20));
          }
          return 'answered';
        };
        const first = await waiting();
        await client.query('commit');
        const answer = await pending;
        expect(first).toBe('waiting');
        expect(answer.status, JSON.stringify(answer.body)).toBe(403);
        expect(answer.body.code).toBe('user_banned');
        expect(await liveSessions(user.userId)).toBe(0);
      } finally {
        await client.end();
      }
    },
  );
});
