import { describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import { createApp, createTenant } from '../../src/services/apps/apps.js';
import { claimDueMail, insertOutboxMail, releaseMail } from '../../src/store/repos/mail-outbox.js';
import { isSqlite } from '../../src/store/db.js';
import { useInProcess } from '../helpers/in-process.js';

// The store suite for the mail outbox's lease (migration 0006), in process on the run's database: an email
// claimed by one node is released only by its holder (a shutdown mid-send, src/services/mail/worker.ts),
// and is then due again for any node. A release by a node that lost the lease changes nothing.
const now = new Date('2026-04-01T00:00:00.000Z');
const clock: Clock = { now: () => now };
const { deps, appsDeps } = useInProcess(clock);
const claim = (holder: string) => claimDueMail(deps.db, { holder, now: iso(now), leaseUntil: iso(addSeconds(now, 60)), limit: 10, skipLocked: !isSqlite(deps.db) });

describe('mail outbox: the lease', () => {
  it('a claimed email is released by its holder only, then due again', async () => {
    const tenant = await createTenant(appsDeps(), 'T');
    const app = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
    const id = `mail_${Math.random().toString(36).slice(2)}`;
    await insertOutboxMail(deps.db, { id, app_id: app.app_id, sealed: 'sealed', attempts: 0, created_at: iso(now), next_attempt_at: iso(now), give_up_at: iso(addSeconds(now, 3600)), lease_holder: null, lease_until: null, last_error: null, gave_up_at: null, recipient_hash: null });

    expect((await claim('node-a')).map((row) => row.id)).toContain(id);
    // Held: another node finds nothing to claim, and its release of a lease it does not hold is ignored.
    expect((await claim('node-b')).map((row) => row.id)).not.toContain(id);
    await releaseMail(deps.db, id, 'node-b');
    expect((await claim('node-b')).map((row) => row.id)).not.toContain(id);

    await releaseMail(deps.db, id, 'node-a');
    const again = await claim('node-b');
    expect(again.map((row) => row.id)).toContain(id);
    expect(again.find((row) => row.id === id)).toMatchObject({ lease_holder: 'node-b', attempts: 0 });
  });
});
