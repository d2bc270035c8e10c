// /console/t/:tenant/apps/:app/email: every kind of email the app sends (GET /v1/apps/{id}/email_templates),
// which of them the app wrote its own template for, and one kind in one locale (`?kind=&locale=` in the
// address) to edit, preview and reset (pages/email/editor.tsx). Owners and admins write; viewers read and preview.
import type { Ok } from '@gatehouse/api-types';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { Link, navigate } from '../router.js';
import { canWrite } from '../store.js';
import { Choice } from '../ui/fields.js';
import { useLoad } from '../ui/load.js';
import { Pending } from '../ui/pending.js';
import { TemplateEditor } from './email/editor.js';

export function EmailPage({ params, query, tenant }: PageProps) {
  const appId = params.app!;
  const base = `/t/${params.tenant}/apps/${appId}/email`;
  const kind = query.get('kind') ?? '';
  const locale = query.get('locale') ?? 'en';
  const list = useLoad(() => api<Ok<'listEmailTemplates'>>('GET', `/v1/apps/${appId}/email_templates`), [appId]);
  if (list.error || !list.data) return <Pending load={list} text="Loading the templates…" />;
  const { kinds, templates, shipped_locales } = list.data;
  const own = (k: string) => templates.filter((t) => t.kind === k).map((t) => t.locale);
  const locales = [...new Set([...shipped_locales, ...own(kind)])];
  const href = (k: string, l = locale) => `${base}?kind=${encodeURIComponent(k)}&locale=${encodeURIComponent(l)}`;
  return (
    <>
      <div class="table-wrap">
        <table>
          <caption>{`Kinds of email: ${kinds.length}`}</caption>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Sent when</th>
              <th scope="col">The app's own in</th>
            </tr>
          </thead>
          <tbody>
            {kinds.map((k) => (
              <tr key={k.kind}>
                <td>
                  <Link href={href(k.kind)} aria-current={k.kind === kind ? 'page' : undefined}>
                    {k.kind}
                  </Link>
                </td>
                <td>{k.description}</td>
                <td>{own(k.kind).join(', ') || 'none (shipped)'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {kind && (
        <>
          <Choice label="Locale" value={locale} onValue={(l) => navigate(href(kind, l))} options={locales.map((l) => [l, l])} hint="Readers whose locale has no template of its own get the nearest one, English last." />
          <TemplateEditor key={`${kind}/${locale}`} appId={appId} kind={kind} locale={locale} writer={canWrite(tenant?.role)} onChanged={list.reload} />
        </>
      )}
      {!kind && <p>Pick a kind to read, edit or preview its template.</p>}
    </>
  );
}
