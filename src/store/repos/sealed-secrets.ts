import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';

// Sealed columns read and rewritten by a master-key rotation. The only queries that span every app:
// the rotation re-seals the whole installation's secrets.

/** A page of signing keys in id order, after `afterId`. */
export async function pageSigningKeys(db: Db, afterId: string | undefined, limit: number) {
  let query = db.selectFrom('signing_keys').select(['id', 'kid', 'private_key_sealed']).orderBy('id').limit(rowLimit(limit));
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.execute();
}

/** Replaces a signing key's seal if it still holds `previous`; true when this call wrote it. */
export async function replaceSealedSigningKey(db: Db, id: string, previous: string, next: string): Promise<boolean> {
  const rows = await db
    .updateTable('signing_keys')
    .set({ private_key_sealed: next })
    .where('id', '=', id)
    .where('private_key_sealed', '=', previous)
    .returning('id')
    .execute();
  return rows.length === 1;
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
  const rows = await db
    .updateTable('oauth_providers')
    .set({ secret_sealed: next })
    .where('app_id', '=', appId)
    .where('provider', '=', provider as 'google' | 'apple')
    .where('secret_sealed', '=', previous)
    .returning('app_id')
    .execute();
  return rows.length === 1;
}

/** A page of queued (or given-up) emails in id order, after `afterId`. */
export async function pageOutboxMail(db: Db, afterId: string | undefined, limit: number) {
  let query = db.selectFrom('mail_outbox').select(['id', 'sealed']).orderBy('id').limit(rowLimit(limit));
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.execute();
}

/** Replaces a queued email's seal if it still holds `previous` (the worker may have sent and deleted it). */
export async function replaceSealedOutboxMail(db: Db, id: string, previous: string, next: string): Promise<boolean> {
  const rows = await db.updateTable('mail_outbox').set({ sealed: next }).where('id', '=', id).where('sealed', '=', previous).returning('id').execute();
  return rows.length === 1;
}

/** A page of OAuth sign-in states (PKCE verifiers) in state-hash order, after `afterHash`. */
export async function pageOAuthStates(db: Db, afterHash: string | undefined, limit: number) {
  let query = db.selectFrom('oauth_states').select(['state_hash', 'code_verifier_sealed']).orderBy('state_hash').limit(rowLimit(limit));
  if (afterHash !== undefined) query = query.where('state_hash', '>', afterHash);
  return query.execute();
}

/** Replaces a state's sealed verifier if it still holds `previous`. */
export async function replaceSealedOAuthState(db: Db, stateHash: string, previous: string, next: string): Promise<boolean> {
  const rows = await db
    .updateTable('oauth_states')
    .set({ code_verifier_sealed: next })
    .where('state_hash', '=', stateHash)
    .where('code_verifier_sealed', '=', previous)
    .returning('state_hash')
    .execute();
  return rows.length === 1;
}

/** A page of TOTP factors (their sealed secrets) in id order, after `afterId`. */
export async function pageTotpSecrets(db: Db, afterId: string | undefined, limit: number) {
  let query = db.selectFrom('mfa_factors').select(['id', 'secret_sealed']).where('secret_sealed', 'is not', null).orderBy('id').limit(rowLimit(limit));
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.execute();
}

/** Replaces a TOTP secret's seal if it still holds `previous` (the factor may have been removed). */
export async function replaceSealedTotpSecret(db: Db, id: string, previous: string, next: string): Promise<boolean> {
  const rows = await db.updateTable('mfa_factors').set({ secret_sealed: next }).where('id', '=', id).where('secret_sealed', '=', previous).returning('id').execute();
  return rows.length === 1;
}

/**
 * A page of webhook endpoints' sealed secrets in id order, after the endpoint of `after` ("id current" or
 * "id previous"): each endpoint gives its secret, and the one a rotation replaced while it is kept.
 */
export async function pageWebhookSecrets(db: Db, after: string | undefined, limit: number) {
  let query = db.selectFrom('webhook_endpoints').select(['id', 'secret_sealed', 'previous_secret_sealed']).orderBy('id').limit(rowLimit(limit));
  if (after !== undefined) query = query.where('id', '>', after.split(' ')[0]);
  return query.execute();
}

/** Replaces an endpoint's secret ("id current") or previous secret ("id previous") if it still holds `previous`. */
export async function replaceSealedWebhookSecret(db: Db, id: string, previous: string, next: string): Promise<boolean> {
  const [endpointId, which] = id.split(' ');
  const column = which === 'previous' ? 'previous_secret_sealed' : 'secret_sealed';
  const rows = await db.updateTable('webhook_endpoints').set({ [column]: next }).where('id', '=', endpointId).where(column, '=', previous).returning('id').execute();
  return rows.length === 1;
}
