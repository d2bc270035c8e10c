import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The console reads the API's records through @gatehouse/api-types (`Ok<'getUser'>`, `Ok<'listUsers'>['users']
// [number]`, `Body<'createUser'>`: docs/console.md, "Adding a page"), generated from the OpenAPI document, so a
// record the API changes fails `tsc` over console/src instead of drifting from a copy. This fails when a console
// file declares one of the API's records with fields of its own (`interface User {`, `type Webhook = {`), or
// types an answer as an object literal (`api<{ users: ... }>(`). Form state and other view types stay
// hand-written under names of their own (Draft, Condition, Progress, ...).

const ROOT = resolve(import.meta.dirname, '../..');
const CONSOLE = join(ROOT, 'console/src');

/** The records (and answers) of the API under the names the console gives them. */
const RECORDS = [
  'User', 'UserList', 'UserSession', 'Session', 'Factor', 'SignInToken', 'ImportAnswer',
  'App', 'Application', 'Tenant', 'ConsoleSession', 'Member', 'Invitation', 'ApiToken', 'Token',
  'Event', 'GatehouseEvent', 'EventPage', 'Stats',
  'Webhook', 'Delivery',
  'Organization', 'OrgMember', 'OrgInvitation', 'OrgRole',
  'Provider', 'Template', 'TemplateList', 'Preview',
  'Overview', 'Ledger', 'Transaction', 'Topup',
  'Table', 'Column', 'Row', 'Bucket', 'StoredObject',
];

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));

/** `interface X {` / `interface X extends ...` / `type X = {` (and `type X<T> = {`) of a record name. */
const declared = new RegExp(`^\\s*(?:export\\s+)?(?:interface\\s+(${RECORDS.join('|')})\\b|type\\s+(${RECORDS.join('|')})\\s*(?:<[^>]*>)?\\s*=\\s*\\{)`, 'gm');
/** An answer typed as an object literal: `api<{ ... }>(`. */
const literalAnswer = /\bapi<\s*\{/g;

function offences(text: string): string[] {
  return [...[...text.matchAll(declared)].map((m) => `declares ${m[1] ?? m[2]}`), ...[...text.matchAll(literalAnswer)].map(() => 'types an api() answer as an object literal')];
}

describe("the console's API records", () => {
  it('are found by the check when copied (the check can fail)', () => {
    expect(offences('export interface User {\n  id: string;\n}')).toEqual(['declares User']);
    expect(offences('interface Preview extends Omit<Template, "source"> {}')).toEqual(['declares Preview']);
    expect(offences('  type Webhook = { url: string };')).toEqual(['declares Webhook']);
    expect(offences("const list = await api<{ users: User[] }>('GET', '/v1/users');")).toEqual(['types an api() answer as an object literal']);
    expect(offences("export type User = Ok<'getUser'>;\ninterface Draft {\n  name: string;\n}\napi<Ok<'listUsers'>>('GET', '/v1/users');")).toEqual([]);
  });

  it('come from @gatehouse/api-types, never a copy in console/src', () => {
    const all = files(CONSOLE);
    expect(all.length).toBeGreaterThan(50);
    const found = all.flatMap((file) => offences(readFileSync(file, 'utf8')).map((what) => `${relative(ROOT, file)} ${what}`));
    expect(found).toEqual([]);
    // And the models do import them: the console names the generated types somewhere.
    const importing = all.filter((file) => /import type \{[^}]*\bOk\b[^}]*\} from '@gatehouse\/api-types'/.test(readFileSync(file, 'utf8')));
    expect(importing.length).toBeGreaterThan(20);
  });
});
