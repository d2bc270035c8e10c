import { recordEvent } from '../events/record.js';
import { eraseUserEvents } from '../events/erasure.js';
import { eventOf, type EventContext } from '../events/types.js';
import { revokeUserSessions } from '../sessions/revocations.js';
import { addSeconds, iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import { forbidden, notFound } from '../../errors.js';
import type { Db } from '../../store/db.js';
import { deleteUserRows } from '../../store/repos/custom-rows.js';
import { addUsedBytes, findCustomTable, listCustomTableIds } from '../../store/repos/custom-tables.js';
import { addBucketUsage } from '../../store/repos/buckets.js';
import { addAppUsage } from '../../store/repos/object-usage.js';
import type { QueuedBlob } from '../../store/repos/objects.js';
import { deleteUserBucketUsage, deleteUserObjects, userShares } from '../../store/repos/user-objects.js';
import * as erasure from '../../store/repos/user-erasure.js';
import { deleteMailTo } from '../../store/repos/mail-outbox.js';
import { deleteUserMemberships } from '../../store/repos/organization-members.js';
import { deleteInvitationsToEmail } from '../../store/repos/organization-invitations.js';
import { normalizeEmail } from '../../store/repos/users.js';
import { deleteUserRow, findUserById, lockUser } from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import { deleteBlobsNow } from '../objects/blob-deletion.js';
import { UPLOAD_TIMEOUT_SECONDS } from '../objects/upload-sweep.js';
import { lockAppUsage } from '../objects/storage-quota.js';
import { recipientHash } from '../mail/outbox.js';
import { deleteConsoleUserRows } from '../management/console-users.js';
import { requireAal2WhenEnrolled, signedInRecently, type StepUpSession } from '../sessions/step-up.js';

// Deleting a user (docs/privacy.md): everything the user owns goes in one transaction, then the
// blobs of their objects. Every table that carries a user id is listed in docs/privacy.md.

export type UserDeletionDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'blobs' | 'log'> & { store: Pick<Deps['store'], 'dialect'> };

/**
 * Deletes the app's user and everything they own, in one transaction: sessions (their access tokens are
 * refused on the next request on every node: the session check reads the database), refresh state,
 * codes and links, SSO tokens, OAuth identities, second factors (factors, recovery codes, MFA and
 * passkey challenges), the mail queued to their addresses (sent or not, given up or not), the rows that counted them as active (the monthly
 * counts stay), their rows in every custom table (the app's table
 * storage freed by what those rows counted), their objects and uploads in flight (bytes freed from the
 * app, bucket and per-user counters; blobs queued), then the user row, which frees the email. The
 * objects' blobs are deleted right after the commit; the queue keeps any a crash leaves for the sweep.
 * 404 for an unknown user, one already deleted, or another app's.
 */
export async function deleteUser(deps: UserDeletionDeps, app: { id: string; tenantId: string }, userId: string, context: EventContext): Promise<void> {
  const appId = app.id;
  const blobs = await inTransaction(deps.db, async (trx) => {
    // The user row's lock first: writers of rows and uploads for this user lock it too (lockUser), so
    // none can add anything for the user between the reads below and the commit.
    if (!(await lockUser(trx, deps.store.dialect, appId, userId, 'update'))) throw notFound('user not found');
    const now = deps.clock.now();
    // Each live session's session.revoked and the user.deleted event, then the personal data of all the
    // user's events erased (docs/events.md): the events stay, with the user id.
    await revokeUserSessions(trx, userId, { app, reason: 'user_deleted', context, now });
    await recordEvent(trx, eventOf(context, { type: 'user.deleted', tenantId: app.tenantId, appId, userId, data: {} }), now);
    await eraseUserEvents(trx, appId, userId);
    await deleteUserMail(trx, appId, userId);
    await deleteUserOrganizations(trx, appId, userId);
    await deleteConsoleUserRows(trx, appId, userId, deps.clock.now());
    await erasure.deleteUserSessions(trx, appId, userId);
    await erasure.deleteUserChallenges(trx, appId, userId);
    await erasure.deleteUserSsoTokens(trx, appId, userId);
    await erasure.deleteUserIdentities(trx, appId, userId);
    await erasure.deleteUserActivity(trx, appId, userId);
    await erasure.deleteUserSecondFactors(trx, appId, userId);
    await deleteUserTableRows(deps, trx, appId, userId);
    const queued = await deleteUserStorage(deps, trx, appId, userId);
    await deleteUserRow(trx, appId, userId);
    return queued;
  });
  deps.log.info({ app_id: appId, user_id: userId, blobs: blobs.length }, 'user deleted');
  await deleteBlobsNow(deps, blobs);
}

/** The user's memberships (each organisation's counts go down with them) and the invitations to their address. */
async function deleteUserOrganizations(trx: Db, appId: string, userId: string): Promise<void> {
  await deleteUserMemberships(trx, appId, userId);
  const user = await findUserById(trx, appId, userId);
  if (user?.email) await deleteInvitationsToEmail(trx, appId, normalizeEmail(user.email));
}

/**
 * Mail queued to the user's address and to every address a code or link of theirs went to (an email
 * change's new address): read before their codes go. A send in flight finishes; the row it would delete
 * is already gone.
 */
async function deleteUserMail(trx: Db, appId: string, userId: string): Promise<void> {
  const user = await findUserById(trx, appId, userId);
  const addresses = new Set(await erasure.userChallengeAddresses(trx, appId, userId));
  if (user?.email) addresses.add(user.email);
  await deleteMailTo(trx, appId, [...addresses].map((address) => recipientHash(appId, address)));
}

/**
 * The user's rows in each of the app's tables (at most 200), each table's metadata held in share mode as
 * row writers hold it, so a schema change that rewrites rows waits rather than deadlocks; the bytes they
 * counted leave the app's table usage in one write.
 */
async function deleteUserTableRows(deps: UserDeletionDeps, trx: Db, appId: string, userId: string): Promise<void> {
  let freed = 0;
  for (const tableId of await listCustomTableIds(trx, appId)) {
    // A table deleted meanwhile has nothing left to free.
    if (!(await findCustomTable(trx, deps.store.dialect, appId, tableId, 'share'))) continue;
    freed += await deleteUserRows(trx, deps.store.dialect, tableId, userId);
  }
  if (freed > 0) await addUsedBytes(trx, appId, -freed, deps.config.tablesStorageLimitBytes);
}

/** The user's objects and uploads in flight: their bytes leave the app, bucket and per-user counters at once. */
export async function deleteUserStorage(deps: UserDeletionDeps, trx: Db, appId: string, userId: string): Promise<QueuedBlob[]> {
  await lockAppUsage(trx, appId);
  const shares = await userShares(trx, appId, userId);
  const now = deps.clock.now();
  const queued = await deleteUserObjects(trx, appId, userId, iso(now), iso(addSeconds(now, UPLOAD_TIMEOUT_SECONDS)));
  let total = 0;
  for (const share of shares) {
    total += share.bytes;
    await addBucketUsage(trx, appId, share.bucketId, -share.bytes, -share.objects);
  }
  if (total > 0) await addAppUsage(trx, appId, -total, 0);
  await deleteUserBucketUsage(trx, appId, userId);
  return queued;
}

/**
 * A user's own deletion (DELETE /v1/me): the app must allow it (`--self-delete`), the session's sign-in
 * must be recent (its auth_time, which a refresh keeps), so a token lifted from a device left signed in
 * cannot erase the account, and a user with a second factor must have used it (aal2).
 */
export async function deleteOwnAccount(deps: UserDeletionDeps, app: { id: string; tenantId: string; selfDelete: boolean }, session: StepUpSession, context: EventContext): Promise<void> {
  if (!app.selfDelete) throw forbidden('this application does not let users delete their own account; ask its operator', 'self_delete_disabled');
  if (!signedInRecently(deps.clock, session)) throw forbidden('sign in again to delete your account', 'reauthentication_required');
  await requireAal2WhenEnrolled(deps, app.id, session, 'delete the account');
  await deleteUser(deps, app, session.userId, context);
}
