import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import type { Deps } from '../../src/deps.js';
import { createApp, createTenant, type AppsDeps } from '../../src/services/apps/apps.js';
import { GIVEN_UP_MAIL_RETENTION_DAYS, pruneExpiredRows, PRUNE_JOB } from '../../src/services/maintenance.js';
import { enqueueMail } from '../../src/services/mail/outbox.js';
import { refreshSession, startSession } from '../../src/services/sessions/sessions.js';
import { acquireJobLock } from '../../src/store/repos/job-locks.js';
import { findUserById, insertUser } from '../../src/store/repos/users.js';
import { openEarlierSession } from '../helpers/earlier-tokens.js';
import { openInProcess } from '../helpers/in-process.js';

// The clean-up job in-process, on the real database of the run, with a clock the test moves.
let deps: Deps;
let dir: string;
let close: (() => Promise<void>) | undefined;
let now = new Date('2026-01-01T00:00:00.000Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  ({ deps, dir, close } = await openInProcess(clock, () => ({ RATE_LIMITS: 'off' })));
});
afterAll(async () => {
  await close?.();
});

const appsDeps = (): AppsDeps => ({ db: deps.db, clock, keys: deps.keys, hashcashEnabled: false });

describe('clean-up of expired rows', () => {
  it('deletes dead single-use rows and keeps live ones', async () => {
    const tenant = await createTenant(appsDeps(), 'T');
    const app = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
    const userId = '00000000-0000-4000-8000-000000000001';
    await insertUser(deps.db, { id: userId, app_id: app.app_id, email: 'a@example.com', email_normalized: 'a@example.com', email_verified: 1, password_hash: null, is_bot: 0, public_key: null, created_at: iso(now), updated_at: iso(now) });
    const user = (await findUserById(deps.db, app.app_id, userId))!;
    const first = await startSession(deps, { id: app.app_id, tenantId: app.tenant_id }, user, { opening: { method: 'password' } });
    const second = await refreshSession(deps, app.app_id, first.refresh_token); // first is now rotated
    // A session from before migration 0014: a rotated and a live refresh token in refresh_tokens.
    const earlier = await openEarlierSession(deps.db, { appId: app.app_id, userId, now: iso(now), expiresAt: iso(addSeconds(now, 30 * 86_400)), rotated: true });
    await deps.db.insertInto('hashcash_spent').values({ challenge_hash: 'h1', app_id: app.app_id, expires_at: iso(addSeconds(now, 300)) }).execute();
    await deps.db.insertInto('bot_auth_replays').values({ signature_hash: 's1', app_id: app.app_id, expires_at: iso(addSeconds(now, 300)) }).execute();

    const early = await pruneExpiredRows(deps);
    expect(early).toEqual({ ran: true, replay_guards: 0, email_challenges: 0, sso_tokens: 0, refresh_tokens: 0, oauth_states: 0, mfa_challenges: 0, stale_uploads: 0, orphan_blobs: 0, sessions: 0, active_users: 0, given_up_mail: 0, webhook_deliveries: 0, outbox_files: 0 });

    now = addSeconds(now, 8 * 86_400);
    const later = await pruneExpiredRows(deps);
    expect(later).toMatchObject({ ran: true, replay_guards: 2, refresh_tokens: 1 });
    const left = await deps.db.selectFrom('refresh_tokens').select('token_hash').execute();
    expect(left).toHaveLength(1);
    // The live tokens survive and still work, the earlier form's too.
    const again = await refreshSession(deps, app.app_id, second.refresh_token);
    expect(again.session_id).toBe(first.session_id);
    const moved = await refreshSession(deps, app.app_id, earlier.token);
    expect(moved.session_id).toBe(earlier.sessionId);
  });

  it(`deletes mail given up on more than ${GIVEN_UP_MAIL_RETENTION_DAYS} days ago; mail given up since, and mail still retried, stay`, async () => {
    const tenant = await createTenant(appsDeps(), 'M');
    const app = await createApp(appsDeps(), tenant.tenant_id, 'M', {});
    const queue = () => enqueueMail({ ...deps, clock }, app.app_id, { to: 'a@example.com', subject: 's', text: 't', html: '<p>t</p>' });
    const old = await queue();
    const recent = await queue();
    const pending = await queue();
    const giveUp = (id: string, at: Date) => deps.db.updateTable('mail_outbox').set({ gave_up_at: iso(at), last_error: '550 a***@example.com' }).where('id', '=', id).execute();
    await giveUp(old, now);
    await giveUp(recent, addSeconds(now, (GIVEN_UP_MAIL_RETENTION_DAYS - 1) * 86_400));
    now = addSeconds(now, GIVEN_UP_MAIL_RETENTION_DAYS * 86_400 + 60);
    expect((await pruneExpiredRows(deps)).given_up_mail).toBe(1);
    const left = await deps.db.selectFrom('mail_outbox').select('id').where('app_id', '=', app.app_id).execute();
    expect(left.map((r) => r.id).sort()).toEqual([recent, pending].sort());
  });

  it('runs on one node at a time: while another holder has the lease it does nothing', async () => {
    expect(await acquireJobLock(deps.db, PRUNE_JOB, 'other-node', iso(now), iso(addSeconds(now, 300)))).toBe(true);
    expect((await pruneExpiredRows(deps)).ran).toBe(false);
    now = addSeconds(now, 301);
    expect((await pruneExpiredRows(deps)).ran).toBe(true);
  });

  it('concurrent acquisitions of a free lease: exactly one wins', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => acquireJobLock(deps.db, 'race-job', `node-${i}`, iso(now), iso(addSeconds(now, 60)))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
