import { iso, type Clock } from '../../clock.js';
import { sha256Hex } from '../../crypto/ids.js';
import type { Db } from '../../store/db.js';
import * as applications from '../../store/repos/applications.js';
import type { Application } from '../../store/repos/applications.js';
import { findChallengeByLinkHash } from '../../store/repos/link-lookups.js';
import { allowedOriginsOf } from '../apps/origins.js';
import { isSignInPurpose, type SignInPurpose } from './verification.js';

export type LinkState = 'live' | 'used' | 'expired' | 'unknown';

export interface LinkLookup {
  state: LinkState;
  purpose?: SignInPurpose;
  /** The link's app, when the token is known. */
  app?: Application;
  /** Where "back to the app" goes: the stored redirect target, else the app's fallback. */
  backUrl?: string;
}

/** The app's own fallback page: its verified domain, else its first allowed origin. */
export function appFallbackUrl(app: Application | undefined): string | undefined {
  if (!app) return undefined;
  if (app.domain) return `https://${app.domain}/`;
  const first = allowedOriginsOf(app)[0];
  return first ? `${first}/` : undefined;
}

/**
 * What an emailed link is, without consuming it: live, used (or replaced by a newer link), expired, or
 * unknown. `fallbackApp` (from a publishable key or a verified Host) gives the way back when the token
 * is unknown.
 */
export async function lookUpLink(deps: { db: Db; clock: Clock }, token: string, fallbackApp?: Application): Promise<LinkLookup> {
  const row = await findChallengeByLinkHash(deps.db, sha256Hex(token));
  // A password-reset or email-change token is no sign-in link: here it is as unknown as a made-up one.
  if (!row || !isSignInPurpose(row.purpose)) return { state: 'unknown', backUrl: appFallbackUrl(fallbackApp) };
  const app = await applications.findApplication(deps.db, row.app_id);
  const known = { app, backUrl: row.redirect_url ?? appFallbackUrl(app), purpose: row.purpose };
  if (row.used_at !== null) return { state: 'used', ...known };
  if (row.link_expires_at === null || row.link_expires_at <= iso(deps.clock.now())) return { state: 'expired', ...known };
  return { state: 'live', ...known };
}
