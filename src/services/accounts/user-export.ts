import { recordEvent, toEvent } from '../events/record.js';
import { eventOf, type EventContext } from '../events/types.js';
import { listEvents, type EventPosition } from '../../store/repos/events.js';
import { inTransaction } from '../../store/transaction.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { pageUserRows } from '../../store/repos/custom-rows.js';
import { findCustomTable, listCustomTableIds, type CustomTable } from '../../store/repos/custom-tables.js';
import { listFactors } from '../../store/repos/mfa-factors.js';
import { findUserMemberships } from '../../store/repos/organization-members.js';
import { listUserIdentities, pageUserSessions } from '../../store/repos/user-export.js';
import { pageUserObjects } from '../../store/repos/user-objects.js';
import { findUserById, type User } from '../../store/repos/users.js';
import { isMissingTable } from '../../store/tables-dialect.js';
import { toFactorView } from '../mfa/factors.js';
import { rowRecords } from '../tables/records.js';
import type { UserObject } from './records.js';

// A user's export (docs/privacy.md): one JSON document, written as it is read. Rows, sessions and
// objects come in keyset pages of PAGE, each turned into text and handed on before the next is read, so a
// user with 100,000 rows is never in memory at once (bench/export-memory.mjs). No password hash, token hash
// or secret is ever selected.

export type UserExportDeps = Pick<Deps, 'db'> & { store: Pick<Deps['store'], 'dialect'> };

const PAGE = 500;

/** The user as GET /v1/users/{id} shows it. */
export const exportedUser = (user: User) => ({
  id: user.id,
  email: user.email,
  email_verified: user.emailVerified,
  is_bot: user.isBot,
  public_metadata: user.publicMetadata,
  private_metadata: user.privateMetadata,
  unsafe_metadata: user.unsafeMetadata,
  banned: user.banned,
  external_id: user.externalId,
  locale: user.locale,
  created_at: user.createdAt,
  updated_at: user.updatedAt,
});

/**
 * The user's export as chunks of JSON text, in order; 404 (before any chunk) for an unknown user or
 * another app's. The document is read page by page as the consumer pulls, so a slow reader holds one page.
 */
export async function exportUser(deps: UserExportDeps, app: { id: string; tenantId: string }, userId: string, context: EventContext): Promise<AsyncIterable<string>> {
  const appId = app.id;
  const user = await findUserById(deps.db, appId, userId);
  if (!user) throw notFound('user not found');
  // user.exported is written as the export starts (it reads; nothing else to commit with), so it is in the export too.
  await inTransaction(deps.db, (trx) => recordEvent(trx, eventOf(context, { type: 'user.exported', tenantId: app.tenantId, appId, userId, data: {} })));
  return documentOf(deps, appId, user);
}

async function* documentOf(deps: UserExportDeps, appId: string, user: User): AsyncGenerator<string> {
  yield `{"user":${JSON.stringify(exportedUser(user))},"identities":${JSON.stringify(await listUserIdentities(deps.db, appId, user.id))},"sessions":[`;
  yield* list(async (after: string | null) => {
    const page = await pageUserSessions(deps.db, appId, user.id, after, PAGE);
    const items = page.map((s) => ({ session_id: s.id, created_at: s.created_at, last_used_at: s.rotated_at ?? s.created_at, revoked_at: s.revoked_at }));
    return { items, next: page.length === PAGE ? page[page.length - 1]!.id : undefined };
  });
  yield '],"tables":[';
  let first = true;
  for (const tableId of await listCustomTableIds(deps.db, appId)) {
    const table = await findCustomTable(deps.db, deps.store.dialect, appId, tableId);
    if (!table) continue;
    const rows = tableRows(deps, table, user.id);
    // Only tables that hold a row of the user: the document is the user's data, not the app's schema.
    const head = await rows.next();
    if (head.done) continue;
    yield `${first ? '' : ','}{"table_id":${JSON.stringify(table.id)},"name":${JSON.stringify(table.name)},"rows":[${head.value}`;
    first = false;
    for await (const chunk of rows) yield chunk;
    yield ']}';
  }
  yield '],"objects":[';
  yield* list(async (after: [string, string] | null) => {
    const page = await pageUserObjects(deps.db, appId, user.id, after ?? undefined, PAGE);
    const last = page[page.length - 1];
    return { items: page satisfies UserObject[], next: page.length === PAGE && last ? ([last.bucket_id, last.key] as [string, string]) : undefined };
  });
  // Second factors: what they are and when they were used; the secrets stay sealed in the database.
  yield `],"factors":${JSON.stringify((await listFactors(deps.db, appId, user.id)).map(toFactorView))}`;
  // Memberships (docs/organizations.md): the organisation's name and slug, the role and since when.
  const memberships = (await findUserMemberships(deps.db, appId, user.id)).map((m) => ({ organization_id: m.organization_id, name: m.name, slug: m.slug, role: m.role, created_at: m.created_at, updated_at: m.updated_at }));
  yield `,"organizations":${JSON.stringify(memberships)},"events":[`;
  // The user's events (docs/events.md), newest first, a keyset page at a time.
  yield* list(async (after: EventPosition | null) => {
    const page = await listEvents(deps.db, { appId, userId: user.id }, { after: after ?? undefined }, PAGE);
    const last = page[page.length - 1];
    return { items: page.map(toEvent), next: page.length === PAGE && last ? { occurredAt: last.occurred_at, eventId: last.event_id } : undefined };
  });
  yield ']}';
}

/** The items of every page, as JSON array elements joined by commas (without the brackets). */
async function* list<C>(page: (after: C | null) => Promise<{ items: unknown[]; next: C | undefined }>): AsyncGenerator<string> {
  let after: C | null = null;
  let first = true;
  for (;;) {
    const { items, next } = await page(after);
    if (items.length > 0) {
      yield (first ? '' : ',') + items.map((item) => JSON.stringify(item)).join(',');
      first = false;
    }
    if (next === undefined) return;
    after = next;
  }
}

/** The user's rows of one table, a page a chunk; a table deleted mid-export ends its list. */
async function* tableRows(deps: UserExportDeps, table: CustomTable, userId: string): AsyncGenerator<string> {
  yield* list(async (after: string | null) => {
    let page;
    try {
      page = await pageUserRows(deps.db, table.id, userId, after, PAGE);
    } catch (error) {
      if (isMissingTable(error)) return { items: [], next: undefined };
      throw error;
    }
    return { items: rowRecords(deps.store.dialect, table.columns, page), next: page.length === PAGE ? page[page.length - 1]!.row_id : undefined };
  });
}
