import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedAuthServer, uniqueEmail, type AuthEnv } from '../helpers/accounts.js';
import { api, type TestApp } from '../helpers/fixtures.js';
import { getProof } from '../helpers/hashcash.js';
import { addMember, ADMIN_TOKEN, consoleApp, consoleUser, manage, tenantOwnedBy, type ConsoleUser } from '../helpers/console.js';

// docs/email.md, docs/management.md: an app's email templates and its token_claims through the Management
// API with a Console credential, as each role allows; another tenant's member or token → 404. Mail goes
// to a real SMTP sink from a real server.

let env: AuthEnv;
let owner: ConsoleUser;
let viewer: ConsoleUser;
let stranger: ConsoleUser;
let strangerToken: string;
let app: TestApp & { app_id: string; secret_key: string; publishable_key: string };

beforeAll(async () => {
  // The worker's shared server of this environment (test/suite.mjs SHARED): this file's tenants, apps and console users are its own.
  env = await sharedAuthServer({ ADMIN_TOKEN });
  const console_ = await consoleApp(env.server);
  owner = await consoleUser(env, console_, 'tpl-owner');
  viewer = await consoleUser(env, console_, 'tpl-viewer');
  stranger = await consoleUser(env, console_, 'tpl-stranger');
  const tenantId = await tenantOwnedBy(env, owner);
  await addMember(env, tenantId, viewer, 'viewer');
  const otherTenant = await tenantOwnedBy(env, stranger, 'Elsewhere');
  strangerToken = (await manage(env.server, stranger.token, 'POST', `/v1/tenants/${otherTenant}/tokens`, { name: 'ci', role: 'admin' })).body.token;
  const created = await manage(env.server, owner.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Atelier', hashcash_difficulty: 0 });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  app = created.body;
}, 180_000);
afterAll(async () => {
  await env?.stop();
});

const base = () => `/v1/apps/${app.app_id}/email_templates`;
const FR_SUBJECT = 'Bienvenue chez {{app_name}}';

describe('email templates through the Management API', () => {
  it('an owner keeps a template; show, list and a real email use it; the change is an app.updated event naming the member', async () => {
    const set = await manage(env.server, owner.token, 'PUT', `${base()}/verify_email`, { locale: 'fr', subject: FR_SUBJECT });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ app_id: app.app_id, kind: 'verify_email', locale: 'fr', source: 'app', subject: FR_SUBJECT, unknown_variables: [] });
    // The body was kept from the shipped French one.
    expect(set.body.text).toContain('{{code}}');
    const shown = await manage(env.server, viewer.token, 'GET', `${base()}/verify_email?locale=fr-CA`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ locale: 'fr', source: 'app', subject: FR_SUBJECT });
    expect((await manage(env.server, viewer.token, 'GET', `${base()}/verify_email?locale=de`)).body.source).toBe('shipped');
    const list = await manage(env.server, viewer.token, 'GET', base());
    expect(list.body.templates.map((t: { kind: string; locale: string }) => [t.kind, t.locale])).toEqual([['verify_email', 'fr']]);
    expect(list.body.shipped_locales).toEqual(expect.arrayContaining(['en', 'fr', 'de']));

    const email = uniqueEmail('fr-reader');
    const hashcash = await getProof(env.server, app.publishable_key);
    const res = await api(env.server, 'POST', '/v1/signups', { publishableKey: app.publishable_key, headers: { 'accept-language': 'fr-FR,fr;q=0.9' }, body: { email, password: 'correct horse battery', hashcash } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await env.sink.waitFor(email)).subject).toBe('Bienvenue chez Atelier');

    const log = await api(env.server, 'GET', '/v1/events?type=app.updated', { bearer: app.secret_key });
    expect(log.body.events[0]).toMatchObject({ type: 'app.updated', app_id: app.app_id, actor: { type: 'member', id: owner.userId }, data: { changed: ['email_templates'], kind: 'verify_email', locale: 'fr' } });
  });

  it('preview renders with sample data for every role, escapes a hostile value in HTML, and keeps nothing', async () => {
    const preview = await manage(env.server, viewer.token, 'POST', `${base()}/password_changed/preview`, { locale: 'de', html: '<p>{{user.public_metadata.name}} {{app_name}}</p>' });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body).toMatchObject({ kind: 'password_changed', locale: 'de', source: 'draft', html: '<p>Ada Lovelace Atelier</p>' });
    const shipped = await manage(env.server, viewer.token, 'POST', `${base()}/verify_email/preview`, { locale: 'fr' });
    expect(shipped.body).toMatchObject({ source: 'app', subject: 'Bienvenue chez Atelier' });
    expect((await manage(env.server, owner.token, 'GET', base())).body.templates).toHaveLength(1);
    // A hostile app name shows as text in the HTML part.
    expect((await manage(env.server, owner.token, 'PATCH', `/v1/apps/${app.app_id}`, { name: '<img src=x onerror=alert(1)>' })).status).toBe(200);
    const hostile = await manage(env.server, viewer.token, 'POST', `${base()}/password_changed/preview`, { html: '<p>{{app_name}}</p>' });
    expect(hostile.body.html).toBe('<p>&lt;img src=x onerror=alert(1)&gt;</p>');
    expect((await manage(env.server, owner.token, 'PATCH', `/v1/apps/${app.app_id}`, { name: 'Atelier' })).status).toBe(200);
  });

  it('a viewer may not keep or delete (403), a bad template is 400, and neither changes anything', async () => {
    const before = (await manage(env.server, owner.token, 'GET', `${base()}/verify_email?locale=fr`)).body;
    expect((await manage(env.server, viewer.token, 'PUT', `${base()}/verify_email`, { locale: 'fr', subject: 'Pwned' })).status).toBe(403);
    expect((await manage(env.server, viewer.token, 'DELETE', `${base()}/verify_email?locale=fr`)).status).toBe(403);
    const bad = await manage(env.server, owner.token, 'PUT', `${base()}/verify_email`, { locale: 'fr', subject: 'Your code {{code}}' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_email_template');
    expect((await manage(env.server, owner.token, 'PUT', `${base()}/no_such_kind`, { subject: 'x' })).body.code).toBe('invalid_email_template');
    expect((await manage(env.server, owner.token, 'PUT', `${base()}/verify_email`, { locale: 'not a tag', subject: 'x' })).body.code).toBe('invalid_locale');
    expect((await manage(env.server, owner.token, 'PUT', `${base()}/verify_email`, { locale: 'fr', subject: 'x', colour: 'red' })).status).toBe(400);
    expect((await manage(env.server, owner.token, 'GET', `${base()}/verify_email?locale=fr`)).body).toEqual(before);
  });

  it("another tenant's member or token gets 404 on every route, and the app's templates are unchanged", async () => {
    for (const credential of [stranger.token, strangerToken]) {
      expect((await manage(env.server, credential, 'GET', base())).status).toBe(404);
      expect((await manage(env.server, credential, 'GET', `${base()}/verify_email?locale=fr`)).status).toBe(404);
      expect((await manage(env.server, credential, 'PUT', `${base()}/verify_email`, { locale: 'fr', subject: 'Pwned' })).status).toBe(404);
      expect((await manage(env.server, credential, 'POST', `${base()}/verify_email/preview`, {})).status).toBe(404);
      expect((await manage(env.server, credential, 'DELETE', `${base()}/verify_email?locale=fr`)).status).toBe(404);
    }
    expect((await manage(env.server, 'tk_' + 'x'.repeat(48), 'GET', base())).status).toBe(401);
    expect((await manage(env.server, owner.token, 'GET', `${base()}/verify_email?locale=fr`)).body.subject).toBe(FR_SUBJECT);
  });

  it('deleting goes back to the shipped template, with its event; deleting again is 404', async () => {
    expect((await manage(env.server, owner.token, 'DELETE', `${base()}/verify_email?locale=fr`)).body).toEqual({ status: 'deleted' });
    expect((await manage(env.server, owner.token, 'GET', `${base()}/verify_email?locale=fr`)).body.source).toBe('shipped');
    expect((await manage(env.server, owner.token, 'DELETE', `${base()}/verify_email?locale=fr`)).status).toBe(404);
    const log = await api(env.server, 'GET', '/v1/events?type=app.updated', { bearer: app.secret_key });
    const templateEvents = log.body.events.filter((e: { data: { changed: string[] } }) => e.data.changed.includes('email_templates'));
    expect(templateEvents).toHaveLength(2);
    expect(templateEvents[0].actor).toEqual({ type: 'member', id: owner.userId });
  });
});

describe('token_claims through the Management API', () => {
  it('PATCH sets it with the CLI rules (a reserved name is 400 and changes nothing) and writes app.updated', async () => {
    const set = await manage(env.server, owner.token, 'PATCH', `/v1/apps/${app.app_id}`, { token_claims: { plan: '{{user.public_metadata.plan}}' } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.token_claims).toEqual({ plan: '{{user.public_metadata.plan}}' });
    for (const reserved of ['sub', 'amr', 'org_id']) {
      const refused = await manage(env.server, owner.token, 'PATCH', `/v1/apps/${app.app_id}`, { token_claims: { [reserved]: '{{user.id}}' } });
      expect(refused.status, reserved).toBe(400);
    }
    expect((await manage(env.server, viewer.token, 'PATCH', `/v1/apps/${app.app_id}`, { token_claims: null })).status).toBe(403);
    expect((await manage(env.server, viewer.token, 'GET', `/v1/apps/${app.app_id}`)).body.token_claims).toEqual({ plan: '{{user.public_metadata.plan}}' });
    const log = await api(env.server, 'GET', '/v1/events?type=app.updated', { bearer: app.secret_key });
    expect(log.body.events[0]).toMatchObject({ actor: { type: 'member', id: owner.userId }, data: { changed: ['token_claims'] } });

  });
});
