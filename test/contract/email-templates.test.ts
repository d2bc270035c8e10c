import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { api, cliJson, createApp, type TestApp } from '../helpers/fixtures.js';
import { built } from '../helpers/server-deps.js';
import { getProof } from '../helpers/hashcash.js';
import { extractCode } from '../helpers/smtp-sink.js';

// docs/email.md: emails in the tenant's words and the user's language. Every email here is received by a
// real SMTP sink from a real server; templates are set, shown, previewed and deleted with the real CLI.

/** A test that starts CLI processes: each costs about a second of CPU, far more on a loaded machine. */
const CLI_TIMEOUT = 240_000;

let env: AuthEnv;
let app: TestApp;
let other: TestApp;
const files = mkdtempSync(join(tmpdir(), 'gatehouse-templates-'));

beforeAll(async () => {
  env = await startAuthServer({ RATE_LIMITS: '' });
  app = await createApp(env.server, { name: 'Atelier', args: ['--email-from', 'Atelier Support <support@atelier.test>', '--reply-to', 'help@atelier.test'] });
  other = await createApp(env.server, { tenantId: app.tenant_id, name: 'Other' });
});
afterAll(async () => {
  await env?.stop();
});

/** A file holding `text`, for --subject, --text and --html. */
function file(name: string, text: string): string {
  const path = join(files, `${name}-${Math.random().toString(36).slice(2)}`);
  writeFileSync(path, text);
  return path;
}

/** POST /v1/signups with a solved proof and the client's Accept-Language. */
async function signUpIn(target: TestApp, email: string, acceptLanguage?: string) {
  const hashcash = await getProof(env.server, target.publishable_key);
  const headers: Record<string, string> = acceptLanguage ? { 'accept-language': acceptLanguage } : {};
  const res = await api(env.server, 'POST', '/v1/signups', { publishableKey: target.publishable_key, headers, body: { email, password: 'correct horse battery', hashcash } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.user_id as string;
}

/** The built service the CLI calls, in the test process (as fixtures.ts does for apps): no CLI process to start. */
type TemplatesService = typeof import('../../src/services/mail/email-templates.js');
const templatesService = (): Promise<TemplatesService> => import(/* @vite-ignore */ new URL('../../dist/src/services/mail/email-templates.js', import.meta.url).href);

const secret = (method: string, path: string, body?: unknown, key = app.secret_key) => api(env.server, method, path, { bearer: key, body });
const magicLink = async (email: string) => expect((await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email } })).status).toBe(200);

describe('the sender', () => {
  it("an app's email_from and reply_to are on the received message, and app show --json prints them", { timeout: CLI_TIMEOUT }, async () => {
    const email = uniqueEmail('sender');
    await signUpIn(app, email);
    const received = await env.sink.waitFor(email);
    expect(received.from).toBe('Atelier Support <support@atelier.test>');
    expect(received.replyTo).toBe('help@atelier.test');
    const shown = await cliJson<Record<string, unknown>>(env.server, ['app', 'show', app.app_id]);
    expect(shown).toMatchObject({ email_from: 'Atelier Support <support@atelier.test>', reply_to: 'help@atelier.test' });
    // Another app of the tenant keeps the server's EMAIL_FROM and no Reply-To.
    const otherEmail = uniqueEmail('sender-other');
    await signUpIn(other, otherEmail);
    const plain = await env.sink.waitFor(otherEmail);
    expect(plain.from).not.toContain('atelier');
    expect(plain.replyTo).toBe('');
  });

  it('a sender that is not one address exits 2 and changes nothing', { timeout: CLI_TIMEOUT }, async () => {
    const res = await env.server.cli(['app', 'update', app.app_id, '--email-from', 'Evil <a@b.test>, other@c.test']);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(/email_from must be one address/);
    const { apps, cliApps } = await built();
    const deps = cliApps.appsDeps(await env.server.deps());
    for (const bad of ['no address', 'X <a@b.test>\r\nBcc: c@d.test', 'a@b.test>']) {
      await expect(apps.updateApp(deps, app.app_id, { replyTo: bad })).rejects.toMatchObject({ status: 400, code: 'invalid_email_sender' });
    }
    expect(await apps.describeApp(deps, app.app_id)).toMatchObject({ email_from: 'Atelier Support <support@atelier.test>', reply_to: 'help@atelier.test' });
  });
});

describe("the user's locale", () => {
  it.each([
    ['en', undefined, 'Verify your email for Atelier', 'The code is valid for 10 minutes.', null],
    ['fr', 'fr-CA,fr;q=0.9,en;q=0.5', 'Vérifiez votre adresse e-mail pour Atelier', 'Le code est valable 10 minutes.', 'fr-CA'],
    ['de', 'de;q=0.8, en;q=0.1', 'Bestätigen Sie Ihre E-Mail-Adresse für Atelier', 'Der Code ist 10 Minuten gültig.', 'de'],
  ])('%s: Accept-Language at sign-up sets the locale, and the sign-up email is in it, its code usable', async (_name, header, subject, validity, locale) => {
    const email = uniqueEmail('locale');
    const userId = await signUpIn(app, email, header);
    const received = await env.sink.waitFor(email);
    expect(received.subject).toBe(subject);
    expect(received.text).toContain(validity);
    expect(received.html).toContain(`<html lang="${locale?.slice(0, 2) ?? 'en'}">`);
    const verified = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: app.publishable_key, body: { email, code: extractCode(received.text) } });
    expect(verified.status).toBe(200);
    expect((await secret('GET', `/v1/users/${userId}`)).body.locale).toBe(locale);
    const exported = await secret('GET', `/v1/users/${userId}/export`);
    expect(exported.body.user.locale).toBe(locale);
  });

  it('PATCH /v1/me and PATCH /v1/users/{id} set it (canonical); a tag that is not BCP 47 is 400 invalid_locale and changes nothing', async () => {
    const user = await verifiedUser(env, app);
    const mine = (body: unknown) => api(env.server, 'PATCH', '/v1/me', { publishableKey: app.publishable_key, bearer: user.tokens.access_token, body });
    const set = await mine({ locale: 'DE-at' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.locale).toBe('de-AT');
    for (const bad of ['en_US', '<b>', 'x'.repeat(36)]) {
      const refused = await mine({ locale: bad });
      expect(refused.status).toBe(400);
      if (bad.length <= 35) expect(refused.body.code).toBe('invalid_locale');
    }
    expect((await api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: user.tokens.access_token })).body.locale).toBe('de-AT');
    // de-AT has no template of its own: German. A password change's notice says so.
    await api(env.server, 'POST', '/v1/me/password', {
      publishableKey: app.publishable_key,
      bearer: user.tokens.access_token,
      body: { current_password: user.password, new_password: 'a new horse battery' },
    });
    expect((await env.sink.waitFor(user.email, { count: 2 })).subject).toBe('Ihr Passwort für Atelier wurde geändert');
    const byServer = await secret('PATCH', `/v1/users/${user.userId}`, { locale: 'fr' });
    expect(byServer.body.locale).toBe('fr');
    await magicLink(user.email);
    expect((await env.sink.waitFor(user.email, { count: 3 })).subject).toBe('Connexion à Atelier');
    expect((await secret('PATCH', `/v1/users/${user.userId}`, { locale: 'no_such' })).body.code).toBe('invalid_locale');
    expect((await secret('PATCH', `/v1/users/${user.userId}`, { locale: null })).body.locale).toBeNull();
  });
});

describe("a tenant's own templates", () => {
  it('set with the CLI, used for the locale, shown, listed, then deleted: back to the shipped one', { timeout: CLI_TIMEOUT }, async () => {
    const subject = file('subject', 'Bienvenue chez {{app_name}}\n');
    const text = file('text', 'Bonjour {{user.email}},\n\nVotre code :\n{{#code}}\n{{code}}\n{{/code}}\n{{#link}}{{link}}{{/link}}\n{{user.public_metadata.nickname}}fin\n');
    const html = file('html', '<p>Bonjour {{user.email}}</p><p>{{code}}</p>');
    const set = await env.server.cli(['app', 'email-template', 'set', app.app_id, 'verify_email', '--locale', 'fr', '--subject', subject, '--text', text, '--html', html, '--json']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ kind: 'verify_email', locale: 'fr', source: 'app', subject: 'Bienvenue chez {{app_name}}' });
    // A management action: app.updated in the same transaction, naming what changed and never the words.
    const events = await secret('GET', '/v1/events?type=app.updated');
    expect(events.body.events[0]).toMatchObject({ type: 'app.updated', actor: { type: 'operator' }, data: { changed: ['email_templates'], kind: 'verify_email', locale: 'fr' } });
    const email = uniqueEmail('override');
    await signUpIn(app, email, 'fr-BE');
    const received = await env.sink.waitFor(email);
    expect(received.subject).toBe('Bienvenue chez Atelier');
    expect(received.text).toContain(`Bonjour ${email},`);
    // A variable the user does not have renders as nothing.
    expect(received.text).toContain('\nfin');
    expect(received.html).toContain(`<p>${extractCode(received.text)}</p>`);
    // An English reader still gets the shipped template.
    const english = uniqueEmail('override-en');
    await signUpIn(app, english, 'en');
    expect((await env.sink.waitFor(english)).subject).toBe('Verify your email for Atelier');

    const service = await templatesService();
    const deps = await env.server.deps();
    expect(await service.showEmailTemplate(deps, app.app_id, 'verify_email', 'fr-BE')).toMatchObject({ source: 'app', locale: 'fr' });
    const list = await cliJson<{ templates: { kind: string; locale: string }[]; kinds: { kind: string }[] }>(env.server, ['app', 'email-template', 'list', app.app_id]);
    expect(list.templates).toEqual([expect.objectContaining({ kind: 'verify_email', locale: 'fr' })]);
    expect(list.kinds.map((k) => k.kind)).toEqual(expect.arrayContaining(['verify_email', 'magic_link', 'password_reset', 'change_email', 'password_changed', 'tenant_invitation', 'organization_invitation']));

    const deleted = await env.server.cli(['app', 'email-template', 'delete', app.app_id, 'verify_email', '--locale', 'fr', '--json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ status: 'deleted' });
    const after = uniqueEmail('override-gone');
    await signUpIn(app, after, 'fr');
    expect((await env.sink.waitFor(after)).subject).toBe('Vérifiez votre adresse e-mail pour Atelier');
    expect((await env.server.cli(['app', 'email-template', 'delete', app.app_id, 'verify_email', '--locale', 'fr'])).code).toBe(1);
  });

  it("a hostile value in a user's metadata is escaped in the HTML part and stays on one line in the text", async () => {
    const user = await verifiedUser(env, app);
    const hostile = '<img src=x onerror=alert(1)> & "Ada"\n123456';
    await secret('PATCH', `/v1/users/${user.userId}`, { public_metadata: { name: hostile } });
    const deps = await env.server.deps();
    const { setEmailTemplate } = await templatesService();
    await setEmailTemplate(deps, app.app_id, 'magic_link', 'en', {
      text: 'Hello {{user.public_metadata.name}}\n{{code}}\n{{link}}\n',
      html: '<p>Hello {{user.public_metadata.name}}</p><p>{{code}}</p>',
    });
    await magicLink(user.email);
    const received = await env.sink.waitFor(user.email, { count: 2 });
    expect(received.html).not.toContain('<img');
    expect(received.html).toContain('Hello &lt;img src=x onerror=alert(1)&gt; &amp; &quot;Ada&quot;\n123456</p>');
    expect(received.text).toContain('Hello <img src=x onerror=alert(1)> & "Ada" 123456\n');
    expect(received.text.split('\n').filter((line) => /^\d{6}$/.test(line.trim()))).toHaveLength(1);
    expect(received.subject).toBe('Sign in to Atelier');
  });

  it('a template that leaves a value unescaped, or a code in its subject, exits 2 and nothing is kept', { timeout: CLI_TIMEOUT }, async () => {
    const res = await env.server.cli(['app', 'email-template', 'set', app.app_id, 'password_reset', '--locale', 'de', '--html', file('html', '<p>{{{user.email}}}</p>')]);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toMatch(/unescaped/);
    const service = await templatesService();
    const deps = await env.server.deps();
    const cases = [
      [{ subject: 'Your code: {{code}}' }, /subject must not carry the code/],
      [{ text: 'no code here' }, /names both \{\{code\}\} and \{\{link\}\}/],
      [{ html: '{{> header}}' }, /partial/],
    ] as const;
    for (const [parts, reason] of cases) {
      await expect(service.setEmailTemplate(deps, app.app_id, 'password_reset', 'de', parts)).rejects.toMatchObject({ status: 400, code: 'invalid_email_template', detail: expect.stringMatching(reason) });
    }
    await expect(service.setEmailTemplate(deps, app.app_id, 'no_such_kind', 'de', { subject: 'x' })).rejects.toMatchObject({ code: 'invalid_email_template' });
    await expect(service.setEmailTemplate(deps, app.app_id, 'password_reset', 'de_DE', { subject: 'x' })).rejects.toMatchObject({ code: 'invalid_locale' });
    expect(await service.showEmailTemplate(deps, app.app_id, 'password_reset', 'de')).toMatchObject({ source: 'shipped', locale: 'de' });
  });

  it('preview renders with sample data, in the locale asked, the shipped template or a draft', { timeout: CLI_TIMEOUT }, async () => {
    const preview = await cliJson<Record<string, string>>(env.server, ['app', 'email-template', 'preview', app.app_id, 'password_reset', '--locale', 'de']);
    expect(preview).toMatchObject({ kind: 'password_reset', locale: 'de', source: 'shipped', subject: 'Setzen Sie Ihr Passwort für Atelier zurück' });
    expect(preview.text).toContain('123456');
    expect(preview.text).toContain('Der Link ist 1 Stunde gültig.');
    const service = await templatesService();
    const draft = await service.previewEmailTemplate(await env.server.deps(), app.app_id, 'organization_invitation', 'en', { html: '<b>{{organization_name}}</b> {{user.public_metadata.name}}' });
    expect(draft).toMatchObject({ source: 'draft', html: '<b>Acme Research</b> Ada Lovelace' });
  });

  it("isolation: another app's template is never used, and its commands need its own id", { timeout: CLI_TIMEOUT }, async () => {
    const deps = await env.server.deps();
    const { setEmailTemplate } = await templatesService();
    await setEmailTemplate(deps, other.app_id, 'verify_email', 'en', { subject: 'OTHER APP {{app_name}}' });
    const email = uniqueEmail('isolated');
    await signUpIn(app, email);
    expect((await env.sink.waitFor(email)).subject).toBe('Verify your email for Atelier');
    const otherEmail = uniqueEmail('isolated-other');
    await signUpIn(other, otherEmail);
    expect((await env.sink.waitFor(otherEmail)).subject).toBe('OTHER APP Other');
    const list = await (await templatesService()).listEmailTemplates(deps, app.app_id);
    expect(list.templates.some((t) => t.kind === 'verify_email')).toBe(false);
    const unknown = await env.server.cli(['app', 'email-template', 'show', 'app_unknown', 'verify_email']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/not found/);
  });
});
