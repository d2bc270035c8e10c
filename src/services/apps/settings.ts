import { badRequest } from '../../errors.js';
import type { ApplicationUpdate } from '../../store/types.js';
import { storedTemplate } from '../sessions/token-claims.js';
import { cookieDomainColumn } from './cookie-domain.js';
import { mailboxColumn } from './email-sender.js';
import { parseDomain, parseOrigin } from './origins.js';

// An app's settings as `gatehouse app create|update` gives them, and the columns they are stored in.

export interface AppSettings {
  domain?: string | null;
  /** Replaces the allow-list. */
  allowedOrigins?: string[];
  /** Added to the allow-list (after a replacement, when both are given). */
  addAllowedOrigins?: string[];
  /** Removed from the allow-list (an origin not on it is no error). */
  removeAllowedOrigins?: string[];
  verificationMethod?: 'code' | 'link' | 'both';
  passwordsEnabled?: boolean;
  hashcashEnabled?: boolean;
  hashcashDifficulty?: number;
  botMinUsd?: number;
  linkLanding?: boolean;
  /** Users may delete their own account (DELETE /v1/me). */
  selfDelete?: boolean;
  /** Second factors: 'required' makes every user enroll one (docs/mfa.md). */
  mfa?: 'optional' | 'required';
  /** Custom-table storage limit in bytes; null: TABLES_STORAGE_LIMIT_BYTES. */
  tablesLimitBytes?: number | null;
  /** Bytes of object storage; null follows OBJECTS_STORAGE_LIMIT_BYTES. */
  objectsLimitBytes?: number | null;
  /** The custom claims template (docs/users.md); null removes it. */
  tokenClaims?: Record<string, unknown> | null;
  /** Organisations on or off, and who may create them (docs/organizations.md). */
  organizations?: boolean;
  orgCreation?: 'users' | 'server';
  /** The sender of the app's emails, `Name <address>` (docs/email.md); null or '': EMAIL_FROM. */
  emailFrom?: string | null;
  /** The Reply-To of the app's emails; null or '': none. */
  replyTo?: string | null;
  /** `__session` is set for this parent domain of the verified domain (docs/browser.md); null or '': host-only. */
  cookieDomain?: string | null;
}

/** The columns of the settings given (each checked); an omitted setting is no column. */
export function settingsToColumns(settings: AppSettings): ApplicationUpdate {
  const columns: ApplicationUpdate = {};
  if (settings.domain !== undefined) columns.domain = settings.domain === null ? null : parseDomain(settings.domain);
  if (settings.allowedOrigins !== undefined) {
    columns.allowed_origins = JSON.stringify([...new Set(settings.allowedOrigins.map(parseOrigin))]);
  }
  if (settings.verificationMethod !== undefined) {
    if (!['code', 'link', 'both'].includes(settings.verificationMethod)) throw badRequest('verification method must be code, link or both');
    columns.verification_method = settings.verificationMethod;
  }
  if (settings.passwordsEnabled !== undefined) columns.passwords_enabled = settings.passwordsEnabled ? 1 : 0;
  if (settings.hashcashEnabled !== undefined) columns.hashcash_enabled = settings.hashcashEnabled ? 1 : 0;
  if (settings.hashcashDifficulty !== undefined) {
    const d = settings.hashcashDifficulty;
    if (!Number.isInteger(d) || d < 0 || d > 32) throw badRequest('hashcash difficulty must be a whole number from 0 to 32');
    columns.hashcash_difficulty = d;
  }
  if (settings.botMinUsd !== undefined) {
    const usd = settings.botMinUsd;
    if (!Number.isFinite(usd) || usd < 0 || Math.round(usd * 100) !== Number((usd * 100).toFixed(6))) {
      throw badRequest('bot minimum must be a non-negative USD amount with at most 2 decimals');
    }
    columns.bot_min_usd_cents = Math.round(usd * 100);
  }
  if (settings.linkLanding !== undefined) columns.link_landing = settings.linkLanding ? 1 : 0;
  if (settings.selfDelete !== undefined) columns.self_delete = settings.selfDelete ? 1 : 0;
  if (settings.mfa !== undefined) {
    if (settings.mfa !== 'optional' && settings.mfa !== 'required') throw badRequest('mfa must be optional or required');
    columns.mfa_policy = settings.mfa === 'required' ? 'required' : null;
  }
  if (settings.tablesLimitBytes !== undefined) {
    const limit = settings.tablesLimitBytes;
    if (limit !== null && (!Number.isSafeInteger(limit) || limit < 0)) throw badRequest('tables limit must be a whole number of bytes');
    columns.tables_limit_bytes = limit;
  }
  if (settings.objectsLimitBytes !== undefined) {
    const n = settings.objectsLimitBytes;
    if (n !== null && (!Number.isSafeInteger(n) || n < 0)) throw badRequest('objects limit must be a whole number of bytes');
    columns.objects_limit_bytes = n;
  }
  if (settings.tokenClaims !== undefined) columns.token_claims = storedTemplate(settings.tokenClaims);
  if (settings.emailFrom !== undefined) columns.email_from = mailboxColumn('email_from', settings.emailFrom);
  if (settings.replyTo !== undefined) columns.reply_to = mailboxColumn('reply_to', settings.replyTo);
  if (settings.cookieDomain !== undefined) columns.cookie_domain = cookieDomainColumn(settings.cookieDomain);
  if (settings.organizations !== undefined) columns.organizations_enabled = settings.organizations ? 1 : 0;
  if (settings.orgCreation !== undefined) {
    if (settings.orgCreation !== 'users' && settings.orgCreation !== 'server') throw badRequest('org creation must be users or server');
    columns.org_creation = settings.orgCreation;
  }
  return columns;
}
