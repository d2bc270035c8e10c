import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryDatabase, TEST_DB } from '../helpers/db.js';
import { earlierRelease, previousReleaseCommit } from '../helpers/earlier-release.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { enrollTotp, passwordChallenge } from '../helpers/mfa.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Beside the previous release: yes (docs/upgrading.md). The release `.ci/previous-release` pins (the first to
// record itself in node_releases) is built from its commit (test/helpers/earlier-release.ts, cached) and
// started on a fresh PostgreSQL database; HEAD then migrates the same database while it serves, both on one
// Redis, and traffic alternates between them. Then the earlier node is stopped and a new one of its release
// starts on the migrated database (a crash, an autoscaler or a rollback mid-rollout).
const PASSWORD = 'correct horse battery';

describe.skipIf(TEST_DB !== 'postgres' || !process.env.TEST_REDIS_URL)('the previous release beside HEAD on one PostgreSQL and one Redis', () => {
  const commit = previousReleaseCommit();
  let earlier: TestServer;
  let head: TestServer;
  let app: TestApp;
  let nodes: [TestServer, TestServer];
  const shared = { RATE_LIMITS: 'signin_ip=1000/60,signin_email=4/60', PUBLIC_BASE_URL: 'https://auth.example.test', NODE_HEARTBEAT_SECONDS: '1' };
  const restarted: TestServer[] = [];

  beforeAll(async () => {
    const bin = earlierRelease(commit);
    earlier = await startServer(shared, { bin });
    head = await startServer({ ...shared, DATABASE_URL: earlier.databaseUrl, MASTER_KEY: earlier.env.MASTER_KEY });
    app = await createApp(earlier);
    nodes = [earlier, head];
  }, 240_000);
  afterAll(async () => {
    for (const node of restarted) await node.stop();
    await head?.stop();
    await earlier?.stop();
  });

  const key = () => ({ publishableKey: app.publishable_key });
  const signIn = (node: TestServer, email: string, password = PASSWORD) => api(node, 'POST', '/v1/signins', { ...key(), body: { email, password } });
  async function user(name: string, on: TestServer) {
    const email = `${name}.${Date.now().toString(36)}@example.com`;
    const created = await api(on, 'POST', '/v1/users', { bearer: app.secret_key, body: { email, password: PASSWORD } });
    expect(created.status).toBe(201);
    return { email, id: created.body.id as string };
  }
  const me = (node: TestServer, token: string) => api(node, 'GET', '/v1/me', { ...key(), bearer: token });

  it('the earlier node runs the pinned release, HEAD its own; both are in node_releases, the earlier one listed first', async () => {
    const health = await Promise.all(nodes.map(async (node) => (await api(node, 'GET', '/v1/health')).body.release as string));
    expect(health[0]).toMatch(new RegExp(`\\+${commit.slice(0, 12)}$`));
    expect(health[1]).not.toBe(health[0]);
    const listed = await head.cli(['nodes', 'list', '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).releases.map((r: { release: string }) => r.release)).toEqual(health);
    // HEAD migrated the database the earlier node serves: 0048 and 0050 are applied and recorded compatible.
    const compatible = await queryDatabase(earlier.databaseUrl, 'select name from migration_compatibility order by name');
    expect(compatible.map((r) => r.name)).toEqual(['0048-event-retention', '0049-node-releases', '0050-known-migrations']);
  });

  it('a refresh chain rotates across both nodes; a rotated token is refused on either', async () => {
    const { email } = await user('chain', head);
    let tokens = (await signIn(earlier, email)).body;
    const spent: string[] = [];
    for (const node of [head, earlier, head, earlier]) {
      const res = await api(node, 'POST', '/v1/tokens/session', { ...key(), body: { refresh_token: tokens.refresh_token } });
      expect(res.status).toBe(200);
      spent.push(tokens.refresh_token);
      tokens = res.body;
      for (const other of nodes) expect((await me(other, tokens.access_token)).status).toBe(200);
    }
    for (const node of nodes) expect((await api(node, 'POST', '/v1/tokens/session', { ...key(), body: { refresh_token: spent[0] } })).status).toBe(401);
  });

  it('a logout or a revocation on either node is refused by the other at once', async () => {
    for (const [from, to] of [[earlier, head], [head, earlier]] as const) {
      const { email } = await user('logout', from);
      const tokens = (await signIn(to, email)).body;
      expect((await me(to, tokens.access_token)).status).toBe(200);
      expect((await api(from, 'POST', '/v1/sessions/logout', { ...key(), bearer: tokens.access_token })).status).toBe(200);
      expect((await me(to, tokens.access_token)).status).toBe(401);
      expect((await api(to, 'POST', '/v1/tokens/session', { ...key(), body: { refresh_token: tokens.refresh_token } })).status).toBe(401);

      const second = (await signIn(from, email)).body;
      expect((await api(to, 'POST', `/v1/sessions/revoke?session_id=${second.session_id}`, { bearer: app.secret_key })).status).toBe(200);
      expect((await me(from, second.access_token)).status).toBe(401);
    }
  });

  it('the per-email sign-in window is one window across both nodes (signin_email=4/60)', async () => {
    const { email } = await user('window', earlier);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await signIn(nodes[i % 2]!, email, 'wrong password!')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it("a user-list cursor from either node is read by the other: the pages join without a repeat or a gap", async () => {
    for (let i = 0; i < 4; i++) await user(`list${i}`, nodes[i % 2]!);
    const pages = async (first: TestServer, second: TestServer) => {
      const one = await api(first, 'GET', '/v1/users?limit=3', { bearer: app.secret_key });
      expect(one.status).toBe(200);
      const two = await api(second, 'GET', `/v1/users?limit=200&cursor=${encodeURIComponent(one.body.next_cursor)}`, { bearer: app.secret_key });
      expect(two.status).toBe(200);
      return [...one.body.users, ...two.body.users].map((u: { id: string }) => u.id);
    };
    const all = (await api(head, 'GET', '/v1/users?limit=200', { bearer: app.secret_key })).body.users.map((u: { id: string }) => u.id);
    expect(all.length).toBeGreaterThan(4);
    expect(await pages(earlier, head)).toEqual(all);
    expect(await pages(head, earlier)).toEqual(all);
  });

  it('TOTP enrolled on HEAD: the earlier node asks for the factor too, and gives no session for the password alone', async () => {
    const { email, id } = await user('totp', head);
    expect((await api(head, 'PATCH', `/v1/users/${id}`, { bearer: app.secret_key, body: { email_verified: true } })).status).toBe(200);
    const totp = await enrollTotp(head, app, (await signIn(head, email)).body.access_token);
    for (const node of nodes) {
      const res = await signIn(node, email);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ mfa_required: true, mfa_token: expect.any(String), factors: [{ factor_id: totp.factorId, type: 'totp' }] });
      expect(res.body.access_token).toBeUndefined();
      expect(res.body.refresh_token).toBeUndefined();
    }
    await passwordChallenge(earlier, app, email, PASSWORD);
  });

  it('a password change and a deletion on either node are honoured by the other', async () => {
    for (const [from, to] of [[earlier, head], [head, earlier]] as const) {
      const { email } = await user('change', to);
      const tokens = (await signIn(to, email)).body;
      const changed = await api(from, 'POST', '/v1/me/password', { ...key(), bearer: tokens.access_token, body: { current_password: PASSWORD, new_password: 'another horse battery' } });
      expect(changed.status).toBe(200);
      expect((await signIn(to, email)).status).toBe(401);
      expect((await signIn(to, email, 'another horse battery')).status).toBe(200);

      // A password check counts in the per-email window as a sign-in does: another user for the deletion.
      const doomed = await user('delete', to);
      const session = (await signIn(to, doomed.email)).body;
      expect((await api(from, 'DELETE', `/v1/users/${doomed.id}`, { bearer: app.secret_key })).status).toBe(200);
      expect((await me(to, session.access_token)).status).toBe(401);
      expect((await api(to, 'POST', '/v1/tokens/session', { ...key(), body: { refresh_token: session.refresh_token } })).status).toBe(401);
      expect((await signIn(to, doomed.email)).status).toBe(401);
      expect((await api(to, 'GET', `/v1/users/${doomed.id}`, { bearer: app.secret_key })).status).toBe(404);
    }
  });

  it('the earlier release starts again on the migrated database and serves it beside HEAD', async () => {
    const { email } = await user('restart', head);
    const tokens = (await signIn(head, email)).body;
    // A node of the earlier release crashes, another starts (or a rollback replaces HEAD's): it must come up.
    process.kill(earlier.pid, 'SIGKILL');
    const again = await startServer({ ...shared, DATABASE_URL: earlier.databaseUrl, MASTER_KEY: earlier.env.MASTER_KEY }, { bin: earlierRelease(commit) });
    restarted.push(again);
    expect((await api(again, 'GET', '/v1/health')).body.status).toBe('ok');
    expect((await me(again, tokens.access_token)).status).toBe(200);
    const rotated = await api(again, 'POST', '/v1/tokens/session', { ...key(), body: { refresh_token: tokens.refresh_token } });
    expect(rotated.status).toBe(200);
    expect((await me(head, rotated.body.access_token)).status).toBe(200);
    expect((await signIn(again, email)).status).toBe(200);
  });
});
