import { badRequest } from '../../errors.js';
import type { User } from '../../store/repos/users.js';

// An app's custom claims (docs/users.md, "Custom claims"): a template in the manner of Clerk's JWT templates,
// claim name → a string with `{{path}}` placeholders. A value that is exactly one placeholder takes the field's
// JSON value (a missing one omits the claim); text around placeholders interpolates them as strings (a missing
// one is empty). Only what the user may read anyway is readable: id, email, email_verified, public_metadata.

export const MAX_TEMPLATE_CLAIMS = 20;
/** The largest access token a template may give; past it the template's claims are left out (see renderedToken). */
export const MAX_ACCESS_TOKEN_BYTES = 4096;

/** The claims the service sets itself, and the standard ones: a template cannot shadow them. */
const RESERVED = new Set(['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti', 'auth_time', 'amr', 'aal', 'sid', 'azp', 'app_id', 'email', 'email_verified']);
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const PATH = /^user\.(id|email|email_verified|public_metadata(\.[A-Za-z0-9_-]+)*)$/;

export type ClaimsTemplate = Record<string, string>;

/** Checks a template before it is stored: 400 naming the first reason it cannot be one. */
export function checkTemplate(template: unknown): ClaimsTemplate {
  if (template === null || typeof template !== 'object' || Array.isArray(template)) throw badRequest('token_claims must be a JSON object');
  const entries = Object.entries(template);
  if (entries.length > MAX_TEMPLATE_CLAIMS) throw badRequest(`token_claims has ${entries.length} claims; at most ${MAX_TEMPLATE_CLAIMS}`);
  for (const [name, value] of entries) {
    if (!/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(name)) throw badRequest(`claim name ${JSON.stringify(name)} must be 1-64 letters, digits, _ . : -`);
    if (RESERVED.has(name) || name.startsWith('org_')) throw badRequest(`claim name ${name} is reserved (the standard claims, the service's own and org_*)`);
    if (typeof value !== 'string') throw badRequest(`claim ${name} must be a string template`);
    for (const [, path] of value.matchAll(PLACEHOLDER)) {
      if (!PATH.test(path!)) throw badRequest(`claim ${name} reads ${path}: only user.id, user.email, user.email_verified and user.public_metadata.* are readable`);
    }
  }
  return template as ClaimsTemplate;
}

/** A template as stored: checked, as JSON text; null (or `{}`) removes it. */
export function storedTemplate(template: unknown): string | null {
  if (template === null) return null;
  const checked = checkTemplate(template);
  return Object.keys(checked).length === 0 ? null : JSON.stringify(checked);
}

/** The parsed template of a stored one (parsed once per distinct text: every refresh reads the same). */
const parsed = new Map<string, ClaimsTemplate>();
function templateOf(stored: string): ClaimsTemplate {
  let template = parsed.get(stored);
  if (!template) {
    template = JSON.parse(stored) as ClaimsTemplate;
    if (parsed.size >= 1000) parsed.clear();
    parsed.set(stored, template);
  }
  return template;
}

function read(user: User, path: string): unknown {
  const [, field, ...rest] = path.split('.');
  if (field === 'id') return user.id;
  if (field === 'email') return user.email ?? undefined;
  if (field === 'email_verified') return user.emailVerified;
  let value: unknown = user.publicMetadata;
  for (const key of rest) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The template's claims for this user (an empty object without a template). */
export function renderClaims(stored: string | null, user: User): Record<string, unknown> {
  if (stored === null) return {};
  const claims: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(templateOf(stored))) {
    const whole = WHOLE.exec(value);
    if (whole) {
      const field = read(user, whole[1]!);
      if (field !== undefined) claims[name] = field;
      continue;
    }
    claims[name] = value.replace(PLACEHOLDER, (_, path: string) => {
      const field = read(user, path);
      if (field === undefined || field === null) return '';
      return typeof field === 'object' ? JSON.stringify(field) : String(field);
    });
  }
  return claims;
}
