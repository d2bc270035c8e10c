import { iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import { hashPassword } from '../../crypto/passwords.js';
import type { Deps } from '../../deps.js';
import { badRequest, conflict, type ErrorCode } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import { isUniqueViolation } from '../../store/dialect.js';
import { findOAuthIdentity, insertOAuthIdentity } from '../../store/repos/oauth-identities.js';
import type { OAuthProviderName } from '../../store/repos/oauth-providers.js';
import * as users from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import { insertTotpFactor } from '../mfa/totp-factors.js';
import { eventOf, recordEvent, type EventContext } from '../events/index.js';
import { checkImportUser, itemError, type CheckedImport } from './import-item.js';
import { recordUserCreated } from './users.js';

// POST /v1/users/import and `gatehouse user import` (docs/import.md): up to IMPORT_MAX users a call. A user is
// written whole or not at all (its row, count, identities, TOTP factor and user.created event commit together;
// one users.imported event with the counts follows), and a bad item never stops the others: it is refused
// before any write (checkImportUser), or its taken email or external_id leaves it out of the bulk write of the
// plain items (isPlain, BULK a transaction) to fail or be skipped alone, as an item with identities, a TOTP
// secret or a password is written alone in its own transaction. Nothing is hashed for an imported hash; a
// plain `password` is hashed with argon2id before its write, as POST /v1/users does.

export type ImportDeps = Pick<Deps, 'db' | 'clock' | 'masterKey'>;

export const IMPORT_MAX = 1000;
/** Items written at once: PostgreSQL's pool runs them side by side; SQLite's one connection takes them in turn. */
const ITEMS_AT_ONCE = 8;
/** Plain items (isPlain) written in one transaction: its locks on the count rows last one such write. */
const BULK = 200;

export type OnConflict = 'skip' | 'error';

export interface ImportResult {
  index: number;
  status: 'created' | 'skipped' | 'error';
  user_id: string | null;
  detail: string | null;
  code: ErrorCode | null;
}

export interface ImportAnswer {
  created: number;
  skipped: number;
  failed: number;
  results: ImportResult[];
}

const errorResult = (index: number, error: unknown): ImportResult => ({ index, status: 'error', user_id: null, ...itemError(error) });

/** Imports the users in order; results has one entry per user sent. */
export async function importUsers(deps: ImportDeps, app: Application, input: { users: unknown[]; on_conflict?: OnConflict }, context: EventContext): Promise<ImportAnswer> {
  const onConflict = input.on_conflict ?? 'error';
  if (!Array.isArray(input.users) || input.users.length < 1 || input.users.length > IMPORT_MAX) throw badRequest(`users must hold 1 to ${IMPORT_MAX} users`);
  const now = deps.clock.now();
  const results: ImportResult[] = new Array(input.users.length);
  const work: { index: number; item: CheckedImport }[] = [];
  // Two items of one call that name one email or external_id: the later is what a repeat of the earlier would be.
  const seen = new Set<string>();
  input.users.forEach((raw, index) => {
    try {
      const item = checkImportUser(raw, { passwordsEnabled: app.passwordsEnabled, now });
      const keys = [`e:${users.normalizeEmail(item.email)}`, ...(item.externalId === null ? [] : [`x:${item.externalId}`])];
      if (keys.some((key) => seen.has(key))) {
        if (onConflict === 'skip') results[index] = { index, status: 'skipped', user_id: null, detail: 'the same email or external_id appears earlier in this call', code: null };
        else throw conflict('the same email or external_id appears earlier in this call', 'user_exists');
        return;
      }
      keys.forEach((key) => seen.add(key));
      work.push({ index, item });
    } catch (error) {
      results[index] = errorResult(index, error);
    }
  });
  // Items with nothing but the user row and its event are written BULK at a time (one transaction, one multi-row
  // INSERT); an item whose email or external_id is taken is left out of it and goes the single way below.
  const single = work.filter(({ item }) => !isPlain(item));
  const plain = work.filter(({ item }) => isPlain(item));
  for (let from = 0; from < plain.length; from += BULK) {
    const chunk = plain.slice(from, from + BULK);
    const created = await importPlain(deps, app, chunk.map(({ item }) => item), context);
    chunk.forEach(({ index }, i) => {
      const userId = created[i];
      if (userId) results[index] = { index, status: 'created', user_id: userId, detail: null, code: null };
      else single.push(chunk[i]!);
    });
  }
  let next = 0;
  const worker = async () => {
    while (next < single.length) {
      const { index, item } = single[next++]!;
      try {
        results[index] = { index, ...(await importOne(deps, app, item, onConflict, context)), detail: null, code: null };
      } catch (error) {
        results[index] = errorResult(index, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(ITEMS_AT_ONCE, single.length) }, worker));
  const count = (status: ImportResult['status']) => results.filter((result) => result.status === status).length;
  const answer = { created: count('created'), skipped: count('skipped'), failed: count('error'), results };
  // One event per call, with its counts (no email: the users' own user.created events name them).
  const totals = { created: answer.created, skipped: answer.skipped, failed: answer.failed };
  await inTransaction(deps.db, (trx) => recordEvent(trx, eventOf(context, { type: 'users.imported', tenantId: app.tenantId, appId: app.id, userId: null, data: totals }), deps.clock.now()));
  return answer;
}

/** An item that is one user row and its event: no identity, no TOTP factor, no password to hash. */
const isPlain = (item: CheckedImport) => item.identities.length === 0 && item.totpSecret === null && item.password === null;

/**
 * The plain items in one transaction: one INSERT of their rows (a row whose email, external_id or id is taken
 * is left out, nothing else is refused), the counts per slot, a user.created event per user inserted. Answers
 * each item's new user id, or undefined where its row was left out (the caller writes that one alone).
 */
async function importPlain(deps: ImportDeps, app: Application, items: CheckedImport[], context: EventContext): Promise<(string | undefined)[]> {
  const at = deps.clock.now();
  const now = iso(at);
  const rows = items.map((item) =>
    users.emailUserRow({ id: newUuid(), appId: app.id, email: item.email, emailVerified: item.emailVerified, passwordHash: item.passwordHash, requiresVerification: false, now, externalId: item.externalId, createdAt: item.createdAt ?? now, locale: item.locale }),
  );
  return inTransaction(deps.db, async (trx) => {
    // In email order: two imports naming the same users in other orders then wait on each other's rows of the
    // (app_id, email) index in one order, never in a cycle (a deadlock on PostgreSQL, answered 503).
    const inserted = await users.insertUsersUnlessTaken(trx, app.id, [...rows].sort((a, b) => (a.email! < b.email! ? -1 : a.email! > b.email! ? 1 : 0)));
    for (const row of rows) if (inserted.has(row.id)) await recordUserCreated(trx, app, row.id, row.email, { context, source: 'import' }, at);
    return rows.map((row) => (inserted.has(row.id) ? row.id : undefined));
  });
}

/** The user already holding the item's email or external_id in the app, if any. */
async function existingUser(db: Deps['db'], appId: string, item: CheckedImport): Promise<{ id: string; by: 'email' | 'external_id' } | undefined> {
  const byEmail = await users.findUserByEmail(db, appId, item.email);
  if (byEmail) return { id: byEmail.id, by: 'email' };
  const byExternal = item.externalId === null ? undefined : await users.findUserByExternalId(db, appId, item.externalId);
  return byExternal && { id: byExternal.id, by: 'external_id' };
}

const taken = (by: 'email' | 'external_id') =>
  by === 'email' ? conflict('a user with this email already exists', 'user_exists') : conflict('a user with this external_id already exists', 'external_id_taken');

async function importOne(deps: ImportDeps, app: Application, item: CheckedImport, onConflict: OnConflict, context: EventContext): Promise<{ status: 'created' | 'skipped'; user_id: string }> {
  if (onConflict === 'skip') {
    const existing = await existingUser(deps.db, app.id, item);
    if (existing) return { status: 'skipped', user_id: existing.id };
  }
  // argon2 runs before the write: slow work stays outside the database.
  const passwordHash = item.password !== null ? await hashPassword(item.password) : item.passwordHash;
  const at = deps.clock.now();
  const now = iso(at);
  const row = users.emailUserRow({
    id: newUuid(),
    appId: app.id,
    email: item.email,
    emailVerified: item.emailVerified,
    passwordHash,
    requiresVerification: false,
    now,
    externalId: item.externalId,
    createdAt: item.createdAt ?? now,
    locale: item.locale,
  });
  try {
    await inTransaction(deps.db, async (trx) => {
      await users.insertUser(trx, row);
      await recordUserCreated(trx, app, row.id, row.email, { context, source: 'import' }, at);
      for (const identity of item.identities) {
        await insertOAuthIdentity(trx, {
          app_id: app.id,
          provider: identity.provider as OAuthProviderName,
          subject: identity.subject,
          user_id: row.id,
          email: identity.email,
          name: null,
          created_at: now,
          updated_at: now,
        });
      }
      if (item.totpSecret !== null) {
        await insertTotpFactor(trx, deps.masterKey, { appId: app.id, userId: row.id, secret: item.totpSecret, status: 'verified', friendlyName: 'Imported authenticator', now });
      }
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // A concurrent writer (another call, a sign-up) took the email, external_id or an identity first.
    const existing = await existingUser(deps.db, app.id, item);
    if (existing && onConflict === 'skip') return { status: 'skipped', user_id: existing.id };
    if (existing) throw taken(existing.by);
    throw await identityTaken(deps, app.id, item);
  }
  return { status: 'created', user_id: row.id };
}

async function identityTaken(deps: ImportDeps, appId: string, item: CheckedImport) {
  for (const identity of item.identities) {
    if (await findOAuthIdentity(deps.db, appId, identity.provider as OAuthProviderName, identity.subject)) {
      return conflict(`the ${identity.provider} identity is linked to another user already`, 'identity_taken');
    }
  }
  return conflict('a user with this email already exists', 'user_exists');
}
