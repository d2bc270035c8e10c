import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import * as templates from '../../../services/management/email-templates.js';
import { eventContext } from '../../event-context.js';
import type { Guards } from '../../plugins/guards.js';
import { errors, StatusBody, Timestamp } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';

// docs/email.md, docs/management.md: an app's own email templates (Console), the services of
// `gatehouse app email-template set|show|list|delete|preview`. Every role reads and previews; owners and
// admins keep and delete.

const Id = Type.String({ minLength: 1, maxLength: 64 });
const Kind = Type.String({ minLength: 1, maxLength: 64 });
const Params = Type.Object({ app_id: Id, kind: Kind });
const Locale = Type.String({ minLength: 1, maxLength: 64, description: 'BCP 47 language tag (default en)' });
const LocaleQuery = Type.Object({ locale: Type.Optional(Locale) });
const Parts = {
  locale: Type.Optional(Locale),
  subject: Type.Optional(Type.String({ maxLength: 2000 })),
  text: Type.Optional(Type.String({ maxLength: 128 * 1024 })),
  html: Type.Optional(Type.String({ maxLength: 256 * 1024 })),
};
const PartsBody = Type.Object(Parts, { title: 'EmailTemplateParts' });
const Source = Type.Union([Type.Literal('app'), Type.Literal('shipped')]);
const Template = { app_id: Type.String(), kind: Type.String(), locale: Type.String(), subject: Type.String(), text: Type.String(), html: Type.String() };
const TemplateBody = Type.Object({ ...Template, source: Source });
const ListBody = Type.Object({
  templates: Type.Array(Type.Object({ kind: Type.String(), locale: Type.String(), created_at: Timestamp, updated_at: Timestamp })),
  kinds: Type.Array(Type.Object({ kind: Type.String(), family: Type.String(), description: Type.String() })),
  shipped_locales: Type.Array(Type.String()),
});
const PreviewBody = Type.Object({ kind: Type.String(), locale: Type.String(), source: Type.Union([Source, Type.Literal('draft')]), subject: Type.String(), text: Type.String(), html: Type.String() });

/** The parts a body gives (a part left out is kept from the template used now). */
function partsOf(body: { subject?: string; text?: string; html?: string } | undefined) {
  const { subject, text, html } = body ?? {};
  return Object.fromEntries(Object.entries({ subject, text, html }).filter(([, value]) => value !== undefined));
}

export function managementEmailTemplateRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'management');
  const base = '/v1/apps/:app_id/email_templates';

  app.get(
    base,
    route.console({ operationId: 'listEmailTemplates', summary: "The app's own email templates, every kind of email and the shipped locales", params: Type.Object({ app_id: Id }), response: { 200: ListBody, ...errors(401, 404) } }),
    async (request) => templates.listEmailTemplatesOf(deps, request.consoleCaller!, request.params.app_id),
  );

  app.get(
    `${base}/:kind`,
    route.console({ operationId: 'getEmailTemplate', summary: "The template a reader in `locale` gets now: the app's own (source app) or the shipped one", params: Params, querystring: LocaleQuery, response: { 200: TemplateBody, ...errors(400, 401, 404) } }),
    async (request) => templates.showEmailTemplateTo(deps, request.consoleCaller!, request.params.app_id, request.params.kind, request.query.locale),
  );

  app.put(
    `${base}/:kind`,
    route.console({
      operationId: 'setEmailTemplate',
      summary: "Keep the app's template of a kind in `locale`; parts not given are taken from the one used there now",
      params: Params,
      body: PartsBody,
      response: { 200: Type.Object({ ...Template, source: Source, unknown_variables: Type.Array(Type.String()) }), ...errors(400, 401, 403, 404) },
    }),
    async (request) => templates.setEmailTemplateOf(deps, request.consoleCaller!, request.params.app_id, request.params.kind, request.body.locale, partsOf(request.body), eventContext(request)),
  );

  app.delete(
    `${base}/:kind`,
    route.console({ operationId: 'deleteEmailTemplate', summary: "Delete the app's template of a kind in `locale`: its emails go back to the shipped one", params: Params, querystring: LocaleQuery, response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404) } }),
    async (request) => templates.deleteEmailTemplateOf(deps, request.consoleCaller!, request.params.app_id, request.params.kind, request.query.locale, eventContext(request)),
  );

  app.post(
    `${base}/:kind/preview`,
    route.console({
      operationId: 'previewEmailTemplate',
      summary: 'Render the template a reader in `locale` gets (or the parts given, not kept) with sample data',
      params: Params,
      body: Type.Optional(PartsBody),
      response: { 200: PreviewBody, ...errors(400, 401, 404) },
    }),
    async (request) => templates.previewEmailTemplateTo(deps, request.consoleCaller!, request.params.app_id, request.params.kind, request.body?.locale, partsOf(request.body)),
  );
}
