/** A sliding-window rule: at most `limit` requests in `windowSeconds`. */
export interface RateRule {
  limit: number;
  windowSeconds: number;
}

/**
 * Every named window of docs/rate-limits.md.
 * `*_email` windows that strangers could fill are keyed by (email, IP); the `*_email_any` windows
 * beside them are the looser per-email caps.
 */
export const DEFAULT_RATE_LIMITS = {
  signup_ip: { limit: 10, windowSeconds: 60 },
  signup_email: { limit: 1, windowSeconds: 300 },
  signin_ip: { limit: 10, windowSeconds: 60 },
  signin_email: { limit: 5, windowSeconds: 60 },
  signin_email_any: { limit: 30, windowSeconds: 300 },
  verify_code_email: { limit: 10, windowSeconds: 300 },
  verify_code_email_any: { limit: 30, windowSeconds: 300 },
  bot_signup_ip: { limit: 5, windowSeconds: 60 },
  bot_auth_bot: { limit: 30, windowSeconds: 60 },
  challenge_ip: { limit: 30, windowSeconds: 60 },
  sso_exchange_ip: { limit: 30, windowSeconds: 60 },
  refresh_ip: { limit: 120, windowSeconds: 60 },
  // Custom-table row writes (create, PATCH, delete) by a Publishable+Session caller, per user (docs/tables.md).
  row_write_user: { limit: 300, windowSeconds: 60 },
  // docs/account.md: password reset requests per (email, IP), and the looser per-email cap.
  password_reset_email: { limit: 5, windowSeconds: 300 },
  password_reset_email_any: { limit: 10, windowSeconds: 3600 },
  // Email-change requests per signed-in user: each one emails an address the user merely typed.
  email_change_user: { limit: 5, windowSeconds: 300 },
  // Second-factor guesses per IP (docs/mfa.md); each challenge also dies after 5 wrong ones.
  mfa_verify_ip: { limit: 30, windowSeconds: 60 },
  // Invitations sent per organisation (docs/organizations.md): each one emails an address a member typed.
  org_invitation_org: { limit: 20, windowSeconds: 3600 },
} satisfies Record<string, RateRule>;

export type RateLimitName = keyof typeof DEFAULT_RATE_LIMITS;
export type RateLimits = Record<RateLimitName, RateRule> | 'off';

/**
 * Parses RATE_LIMITS: unset → defaults; `off` → disabled; otherwise `name=limit/seconds,...`
 * overriding the named defaults. Throws a message naming the bad part.
 */
export function parseRateLimits(raw: string | undefined): RateLimits {
  const rules: Record<string, RateRule> = structuredClone(DEFAULT_RATE_LIMITS);
  if (raw === undefined || raw.trim() === '') return rules as Record<RateLimitName, RateRule>;
  if (raw.trim().toLowerCase() === 'off') return 'off';
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const match = /^([a-z_]+)=(\d+)\/(\d+)$/.exec(part);
    if (!match) throw new Error(`"${part}" is not name=limit/seconds`);
    const [, name, limit, seconds] = match;
    if (!(name in DEFAULT_RATE_LIMITS)) {
      throw new Error(`unknown limit "${name}" (known: ${Object.keys(DEFAULT_RATE_LIMITS).join(', ')})`);
    }
    if (Number(seconds) < 1) throw new Error(`"${part}": the window must be at least 1 second`);
    rules[name] = { limit: Number(limit), windowSeconds: Number(seconds) };
  }
  return rules as Record<RateLimitName, RateRule>;
}
