import { sql, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';
import type { Database } from '../types.js';
import { wroteOne } from './conditional-write.js';

// Sealed columns read and rewritten by a master-key rotation. The only queries that span every app:
// the rotation re-seals the whole installation's secrets.

/** `query`'s rows in `key` order after `after` (from the first when undefined), `limit` of them: a page of the rotation's walk. */
function pageAfter<TB extends keyof Database, O>(query: SelectQueryBuilder<Database, TB, O>, key: keyof Database[TB] & string, after: string | undefined, limit: number) {
  return query
    .$if(after !== undefined, (q) => q.where(sql.ref(key), '>', after))
    .orderBy(sql.ref(key))
    .limit(rowLimit(limit))
    .execute();
}

/** The tables whose rows one text key names: that key, and the sealed column a rotation rewrites. */
const SEALED = {
  signing_keys: { key: 'id', sealed: 'private_key_sealed' },
  mail_outbox: { key: 'id', sealed: 'sealed' },
  oauth_states: { key: 'state_hash', sealed: 'code_verifier_sealed' },
  mfa_factors: { key: 'id', sealed: 'secret_sealed' },
} as const satisfies { [T in keyof Database]?: { key: keyof Database[T]; sealed: keyof Database[T] } };

/**
 * Replaces the seal of `table`'s row `id` if it still holds `previous`, in one conditional write: a row
 * changed or removed meanwhile is left alone. True when this call wrote it.
 */
function replaceSeal(db: Db, table: keyof typeof SEALED, id: string, previous: string, next: string): Promise<boolean> {
  const { key, sealed } = SEALED[table];
  return wroteOne(
    db
      .updateTable(table)
      .set({ [sealed]: next })
      .where(key, '=', id)
      .where(sealed, '=', previous)
      .returning(key),
  );
}

/** A page of signing keys in id order, after `afterId`. */
export async function pageSigningKeys(db: Db, afterId: string | undefined, limit: number) {
  return pageAfter(db.selectFrom('signing_keys').select(['id', 'kid', 'private_key_sealed']), 'id', afterId, limit);
}

/** Replaces a signing key's seal if it still holds `previous`; true when this call wrote it. */
export async function replaceSealedSigningKey(db: Db, id: string, previous: string, next: string): Promise<boolean> {
  return replaceSeal(db, 'signing_keys', id, previous, next);
}

/** A page of OAuth provider configurations in (app_id, provider) order, after `after` ("app_id provider"). */
export async function pageOAuthProviders(db: Db, after: string | undefined, limit: number) {
  let query = db.selectFrom('oauth_providers').select(['app_id', 'provider', 'secret_sealed']).orderBy('app_id').orderBy('provider').limit(rowLimit(limit));
  if (after !== undefined) {
    const [appId, provider] = after.split(' ');
    query = query.where((eb) => eb.or([eb('app_id', '>', appId), eb.and([eb('app_id', '=', appId), eb('provider', '>', provider as 'google' | 'apple')])]));
  }
  return query.execute();
}

/** Replaces a provider secret's seal if it still holds `previous`; true when this call wrote it. */
export async function replaceSealedOAuthSecret(db: Db, id: string, previous: string, next: string): Promise<boolean> {
  const [appId, provider] = id.split(' ');
  return wroteOne(
    db.updateTable('oauth_providers').set({ secret_sealed: next }).where('app_id', '=', appId).where('provider', '=', provider as 'google' | 'apple').where('secret_sealed', '=', previous).returning('app_id'),
  );
}

/** A page of queued (or given-up) emails in id order, after `afterId`. */
export async function pageOutboxMail(db: Db, afterId: string | undefined, limit: number) {
  return pageAfter(db.selectFrom('mail_outbox').select(['id', 'sealed']), 'id', afterId, limit);
}

/** Replaces a queued email's seal if it still holds `previous` (the worker may have sent and deleted it). */
export async function replaceSealedOutboxMail(db: Db, id: string, previous: string, next: string): Promise<boolean> {
  return replaceSeal(db, 'mail_outbox', id, previous, next);
}

/** A page of OAuth sign-in states (PKCE verifiers) in state-hash order, after `afterHash`. */
export async function pageOAuthStates(db: Db, afterHash: string | undefined, limit: number) {
  return pageAfter(db.selectFrom('oauth_states').select(['state_hash', 'code_verifier_sealed']), 'state_hash', afterHash, limit);
}

/** Replaces a state's sealed verifier if it still holds `previous`. */
export async function replaceSealedOAuthState(db: Db, stateHash: string, previous: string, next: string): Promise<boolean> {
  return replaceSeal(db, 'oauth_states', stateHash, previous, next);
}

/** A page of TOTP factors (their sealed secrets) in id order, after `afterId`. */
export async function pageTotpSecrets(db: Db, afterId: string | undefined, limit: number) {
  return pageAfter(db.selectFrom('mfa_factors').select(['id', 'secret_sealed']).where('secret_sealed', 'is not', null), 'id', afterId, limit);
}

/** Replaces a TOTP secret's seal if it still holds `previous` (the factor may have been removed). */
export async function replaceSealedTotpSecret(db: Db, id: string, previous: string, next: string): Promise<boolean> {
  return replaceSeal(db, 'mfa_factors', id, previous, next);
}

/**
 * A page of webhook endpoints' sealed secrets in id order, after the endpoint of `after` ("id current" or
 * "id previous"): each endpoint gives its secret, and the one a rotation replaced while it is kept.
 */
export async function pageWebhookSecrets(db: Db, after: string | undefined, limit: number) {
  return pageAfter(db.selectFrom('webhook_endpoints').select(['id', 'secret_sealed', 'previous_secret_sealed']), 'id', after?.split(' ')[0], limit);
}

/** Replaces an endpoint's secret ("id current") or previous secret ("id previous") if it still holds `previous`. */
export async function replaceSealedWebhookSecret(db: Db, id: string, previous: string, next: string): Promise<boolean> {
  const [endpointId, which] = id.split(' ');
  const column = which === 'previous' ? 'previous_secret_sealed' : 'secret_sealed';
  return wroteOne(db.updateTable('webhook_endpoints').set({ [column]: next }).where('id', '=', endpointId).where(column, '=', previous).returning('id'));
}
