import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { EmailTemplate } from '../mail/shipped.js';
import * as templates from '../services/mail/email-templates.js';
import { pathOf, type Cli } from './io.js';
import { print, UsageError, withDeps } from './shared.js';

// `gatehouse app email-template set|show|list|delete|preview` (docs/email.md): a tenant's own words for the
// emails of an app, per kind and locale, each a thin call into services/mail/email-templates.ts.

interface PartFlags {
  locale?: string;
  subject?: string;
  text?: string;
  html?: string;
  json?: boolean;
}

/** The parts given as files (--subject F --text F --html F); the subject is one line, its file's last newline dropped. */
async function partsOf(cli: Cli, flags: PartFlags): Promise<Partial<EmailTemplate>> {
  const read = async (path: string | undefined, what: string) => {
    if (path === undefined) return undefined;
    try {
      return await readFile(pathOf(cli, path), 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read the ${what} file ${path}: ${(error as Error).message}`);
    }
  };
  const subject = await read(flags.subject, 'subject');
  const parts: Partial<EmailTemplate> = { subject: subject?.replace(/\r?\n$/, ''), text: await read(flags.text, 'text'), html: await read(flags.html, 'HTML') };
  return Object.fromEntries(Object.entries(parts).filter(([, value]) => value !== undefined));
}

/** Without --json: the subject, then each part under its name. */
function printTemplate<T extends { subject: string; text: string; html: string }>(cli: Cli, value: T, json: boolean | undefined): void {
  if (json) return print(cli, value, true);
  const { subject, text, html, ...rest } = value;
  print(cli, rest, false);
  cli.stdout.write(`\n--- subject\n${subject}\n--- text\n${text}${text.endsWith('\n') ? '' : '\n'}--- html\n${html}${html.endsWith('\n') ? '' : '\n'}`);
}

const withPartOptions = (command: Command) =>
  command
    .option('--locale <tag>', 'BCP 47 language tag, such as en, fr, de-AT (default en)')
    .option('--subject <file>', 'a file holding the subject (Mustache)')
    .option('--text <file>', 'a file holding the plain-text part (Mustache)')
    .option('--html <file>', 'a file holding the HTML part (Mustache; every value is escaped)')
    .option('--json', 'print JSON');

export function registerEmailTemplateCommands(app: Command, cli: Cli): void {
  const group = app
    .command('email-template')
    .description("the app's own subject, text and HTML of a kind of email in a locale, used over the shipped ones (docs/email.md)");
  withPartOptions(group.command('set').argument('<app_id>').argument('<kind>'))
    .description('keep the app\'s template of KIND in --locale; parts not given are taken from the one used there now')
    .action(async (appId: string, kind: string, flags: PartFlags) => {
      const parts = await partsOf(cli, flags);
      if (Object.keys(parts).length === 0) throw new UsageError('give at least one of --subject, --text, --html');
      const set = await withDeps(cli, (deps) => templates.setEmailTemplate(deps, appId, kind, flags.locale ?? 'en', parts));
      for (const name of set.unknown_variables) cli.stderr.write(`gatehouse: warning: no ${kind} email carries {{${name}}}; it renders as nothing\n`);
      printTemplate(cli, set, flags.json);
    });
  group
    .command('show')
    .argument('<app_id>')
    .argument('<kind>')
    .description("the template a reader in --locale gets: the app's own (source app) or the shipped one (source shipped)")
    .option('--locale <tag>', 'BCP 47 language tag (default en)')
    .option('--json', 'print JSON')
    .action(async (appId: string, kind: string, flags: PartFlags) => {
      printTemplate(cli, await withDeps(cli, (deps) => templates.showEmailTemplate(deps, appId, kind, flags.locale)), flags.json);
    });
  group
    .command('list')
    .argument('<app_id>')
    .description("the app's own templates, every kind of email, and the shipped locales")
    .option('--json', 'print JSON')
    .action(async (appId: string, flags: { json?: boolean }) => {
      const list = await withDeps(cli, (deps) => templates.listEmailTemplates(deps, appId));
      if (flags.json) return print(cli, list, true);
      for (const t of list.templates) cli.stdout.write(`${t.kind.padEnd(24)} ${t.locale.padEnd(10)} ${t.updated_at}\n`);
      if (list.templates.length === 0) cli.stdout.write('(no template of its own: every email is the shipped one)\n');
      cli.stdout.write(`\nkinds: ${list.kinds.map((k) => k.kind).join(', ')}\nshipped locales: ${list.shipped_locales.join(', ')}\n`);
    });
  group
    .command('delete')
    .argument('<app_id>')
    .argument('<kind>')
    .description("remove the app's template of KIND in --locale: its emails go back to the shipped one")
    .option('--locale <tag>', 'BCP 47 language tag (default en)')
    .option('--json', 'print JSON')
    .action(async (appId: string, kind: string, flags: PartFlags) => {
      print(cli, await withDeps(cli, (deps) => templates.deleteEmailTemplate(deps, appId, kind, flags.locale ?? 'en')), flags.json);
    });
  withPartOptions(group.command('preview').argument('<app_id>').argument('<kind>'))
    .description('render the template a reader in --locale gets (or the files given, unsaved) with sample data')
    .action(async (appId: string, kind: string, flags: PartFlags) => {
      const parts = await partsOf(cli, flags);
      printTemplate(cli, await withDeps(cli, (deps) => templates.previewEmailTemplate(deps, appId, kind, flags.locale, parts)), flags.json);
    });
}
