// Every setting of an app as `gatehouse app show --json` prints it (contract 16, docs/cli.md), with the
// one line the settings page shows under it, and how its field reads and writes the value.
import type { Body, Ok } from '@gatehouse/api-types';

/** An app as GET /v1/apps/{id} answers it (`secret_key` only in the answer that made it). */
export type App = Ok<'getApp'>;

export type Kind = 'bool' | 'choice' | 'int' | 'number' | 'text' | 'lines' | 'json';

export interface Setting {
  /** A field of the app that PATCH /v1/apps/{id} takes. */
  name: keyof App & keyof Body<'updateApp'>;
  label: string;
  help: string;
  kind: Kind;
  options?: [string, string][];
  /** An empty field sends null: the server's default applies. */
  nullable?: boolean;
  /** Set by the server operator only (403 operator_only_setting for a member). */
  operatorOnly?: boolean;
}

export const SETTINGS: Setting[] = [
  { name: 'allowed_origins', label: 'Allowed origins', kind: 'lines', help: 'The web origins (one per line, e.g. https://app.example.com) whose pages may call this app and receive its redirects.' },
  { name: 'verification_method', label: 'Email verification', kind: 'choice', options: [['code', 'A 6-digit code'], ['link', 'A link'], ['both', 'A code and a link']], help: 'How a sign-up proves its email address.' },
  { name: 'passwords_enabled', label: 'Passwords', kind: 'bool', help: 'Whether users may sign up and sign in with a password (off: emailed codes, links, passkeys and providers only).' },
  { name: 'hashcash_enabled', label: 'Proof-of-work on sign-up', kind: 'choice', options: [['true', 'On'], ['false', 'Off']], help: "A sign-up solves a small puzzle first, which slows bulk sign-ups by bots (empty: the server's HASHCASH_ENABLED)." },
  { name: 'hashcash_difficulty', label: 'Proof-of-work difficulty', kind: 'int', help: 'Leading zero bits the puzzle needs (0-32): each one more doubles the work.' },
  { name: 'mfa', label: 'Second factor', kind: 'choice', options: [['optional', 'Optional'], ['required', 'Required']], help: 'Required: a session without a second factor may only enroll one.' },
  { name: 'link_landing', label: 'Email-link landing page', kind: 'bool', help: 'On: an emailed link opens a one-button page first, so mail scanners that open every link consume nothing.' },
  { name: 'self_delete', label: 'Users may delete their account', kind: 'bool', help: 'Whether DELETE /v1/me is allowed (off: 403).' },
  { name: 'organizations_enabled', label: 'Organisations', kind: 'bool', help: 'Organisations, their members, invitations and shared rows (off: every organisation route is 404).' },
  { name: 'org_creation', label: 'Who creates organisations', kind: 'choice', options: [['users', 'Any signed-in user'], ['server', 'Only your servers (secret key)']], help: 'Who may create an organisation.' },
  { name: 'bot_min_usd', label: 'Smallest bot donation (USD)', kind: 'number', help: 'The smallest confirmed donation a bot may register with.' },
  { name: 'tables_limit_bytes', label: 'Tables storage limit (bytes)', kind: 'int', nullable: true, help: "The custom tables' storage limit of this app (empty: the server's default)." },
  { name: 'objects_limit_bytes', label: 'Object storage limit (bytes)', kind: 'int', nullable: true, help: "The buckets' storage limit of this app (empty: the server's default)." },
  { name: 'email_from', label: 'Email sender', kind: 'text', nullable: true, help: 'The sender of the app\'s emails, "Name <address>" or an address (empty: the server\'s EMAIL_FROM).' },
  { name: 'reply_to', label: 'Reply-To', kind: 'text', nullable: true, help: "The Reply-To of the app's emails (empty: none)." },
  { name: 'token_claims', label: 'Custom token claims (JSON)', kind: 'json', help: 'Extra access-token claims from a template, e.g. {"role": "{{user.public_metadata.role}}"} (empty: none).' },
  { name: 'domain', label: 'Verified domain', kind: 'text', nullable: true, operatorOnly: true, help: 'The app\'s own host name for cookie flows; set by the server operator.' },
  { name: 'cookie_domain', label: 'Cookie domain', kind: 'text', nullable: true, operatorOnly: true, help: 'A parent domain of the verified domain that the session cookie is set for; set by the server operator.' },
];

/** The field's text (or checkbox state) for a stored value. */
export function toField(setting: Setting, value: unknown): string | boolean {
  if (setting.kind === 'bool') return value === true;
  if (value === null || value === undefined) return '';
  if (setting.kind === 'lines') return (value as string[]).join('\n');
  if (setting.kind === 'json') return Object.keys(value as object).length ? JSON.stringify(value) : '';
  return String(value);
}

/** The value to send for a field; throws a sentence when it does not parse. */
export function fromField(setting: Setting, field: string | boolean): unknown {
  if (setting.kind === 'bool') return field === true;
  const text = String(field).trim();
  if (text === '' && setting.nullable) return null;
  switch (setting.kind) {
    case 'lines':
      return text.split(/\s*\n\s*/).filter(Boolean);
    case 'json':
      if (text === '') return {};
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(`${setting.label}: not valid JSON`);
      }
    case 'int':
    case 'number': {
      const n = Number(text);
      if (text === '' || !Number.isFinite(n) || (setting.kind === 'int' && !Number.isInteger(n))) throw new Error(`${setting.label}: enter a ${setting.kind === 'int' ? 'whole ' : ''}number`);
      return n;
    }
    case 'choice':
      return text === 'true' ? true : text === 'false' ? false : text;
    default:
      return text;
  }
}
