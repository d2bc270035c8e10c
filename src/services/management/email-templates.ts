import type { EmailTemplate } from '../../mail/shipped.js';
import * as templates from '../mail/email-templates.js';
import type { EventContext } from '../events/types.js';
import type { AppsDeps } from '../apps/apps.js';
import { appFor } from './apps.js';
import type { ConsoleCaller } from './roles.js';

// An app's email templates through the Management API (docs/email.md, docs/management.md): the services of
// `gatehouse app email-template ...` (services/mail/email-templates.ts), behind the caller's role in the
// app's tenant. Reading and previewing (nothing kept) need `read`; keeping and deleting need `write`.

export async function listEmailTemplatesOf(deps: AppsDeps, caller: ConsoleCaller, appId: string) {
  await appFor(deps, caller, appId, 'read');
  return templates.listEmailTemplates(deps, appId);
}

export async function showEmailTemplateTo(deps: AppsDeps, caller: ConsoleCaller, appId: string, kind: string, locale: string | undefined) {
  await appFor(deps, caller, appId, 'read');
  return templates.showEmailTemplate(deps, appId, kind, locale);
}

export async function setEmailTemplateOf(deps: AppsDeps, caller: ConsoleCaller, appId: string, kind: string, locale: string | undefined, parts: Partial<EmailTemplate>, context: EventContext) {
  await appFor(deps, caller, appId, 'write');
  return templates.setEmailTemplate(deps, appId, kind, locale ?? 'en', parts, context);
}

export async function deleteEmailTemplateOf(deps: AppsDeps, caller: ConsoleCaller, appId: string, kind: string, locale: string | undefined, context: EventContext) {
  await appFor(deps, caller, appId, 'write');
  return templates.deleteEmailTemplate(deps, appId, kind, locale ?? 'en', context);
}

export async function previewEmailTemplateTo(deps: AppsDeps, caller: ConsoleCaller, appId: string, kind: string, locale: string | undefined, parts: Partial<EmailTemplate>) {
  await appFor(deps, caller, appId, 'read');
  return templates.previewEmailTemplate(deps, appId, kind, locale, parts);
}
