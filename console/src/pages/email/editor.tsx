// One kind of email in one locale: the template its readers get now (the app's own or the shipped one),
// edited part by part (PUT keeps it), previewed with sample data (POST .../preview: the draft, not kept),
// reset to the shipped one (DELETE). A viewer reads and previews only.
import type { Ok } from '@gatehouse/api-types';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Field, Form, TextArea } from '../../ui/fields.js';
import { useAction, useLoad } from '../../ui/load.js';
import { Pending } from '../../ui/pending.js';
import { Notice, Problem } from '../../ui/problem.js';
import { DrawnEmail } from './drawn.js';

type Preview = Ok<'previewEmailTemplate'>;

/**
 * The preview route's answer: the subject, the text part, and the HTML part drawn (pages/email/drawn.tsx,
 * within the console's CSP) with its source one click away.
 */
function Rendered({ preview }: { preview: Preview }) {
  return (
    <section aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <p>
        Subject: <strong>{preview.subject}</strong>
      </p>
      <h3>Text part</h3>
      <pre class="preview-text">{preview.text}</pre>
      <h3>HTML part</h3>
      <DrawnEmail html={preview.html} />
      <details>
        <summary>Its source, with the sample values filled in</summary>
        <pre class="preview-text">{preview.html}</pre>
      </details>
    </section>
  );
}

export function TemplateEditor({ appId, kind, locale, writer, onChanged }: { appId: string; kind: string; locale: string; writer: boolean; onChanged: () => void }) {
  const base = `/v1/apps/${appId}/email_templates/${kind}`;
  const loaded = useLoad(() => api<Ok<'getEmailTemplate'>>('GET', base, { query: { locale } }), [base, locale]);
  const [draft, setDraft] = useState({ subject: '', text: '', html: '' });
  const [preview, setPreview] = useState<Preview | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const save = useAction();
  const show = useAction();
  const reset = useAction();
  const t = loaded.data;
  useEffect(() => {
    if (t) setDraft({ subject: t.subject, text: t.text, html: t.html });
    setPreview(undefined);
  }, [t]);
  if (loaded.error || !t) return <Pending load={loaded} text="Loading the template…" />;
  const edited = draft.subject !== t.subject || draft.text !== t.text || draft.html !== t.html;
  const runPreview = () => show.run(async () => setPreview(await api<Ok<'previewEmailTemplate'>>('POST', `${base}/preview`, { body: writer && edited ? { locale, ...draft } : { locale } })));
  const keep = () =>
    save.run(async () => {
      const answer = await api<Ok<'setEmailTemplate'>>('PUT', base, { body: { locale, ...draft } });
      setDone(answer.unknown_variables.length ? `Saved. Unknown variables: ${answer.unknown_variables.join(', ')}.` : 'Saved.');
      loaded.reload();
      onChanged();
    });
  const back = () =>
    reset.run(async () => {
      await api('DELETE', base, { query: { locale } });
      setDone('Reset: its readers get the shipped template again.');
      loaded.reload();
      onChanged();
    });
  const sourceLine = t.source === 'app' ? "This app's own template." : 'The shipped template (the app has none of its own here).';
  return (
    <>
      <section aria-labelledby="template-title">
        <h2 id="template-title">{`${kind} (${t.locale})`}</h2>
        <p>{sourceLine}</p>
        {writer ? (
          <Form onSubmit={keep} label={`Template ${kind}`}>
            <Field label="Subject" value={draft.subject} onValue={(subject) => setDraft({ ...draft, subject })} maxLength={2000} spellcheck={false} />
            <TextArea label="Text part" rows={8} value={draft.text} onValue={(text) => setDraft({ ...draft, text })} hint="Mustache: {{code}}, {{link}}, {{app_name}}… as the shipped template uses them." />
            <TextArea label="HTML part" rows={8} value={draft.html} onValue={(html) => setDraft({ ...draft, html })} />
            <p class="actions">
              <button type="submit" disabled={save.busy}>
                Save template
              </button>
              <button type="button" class="secondary" onClick={runPreview} disabled={show.busy}>
                Preview
              </button>
              {t.source === 'app' && (
                <button type="button" class="secondary" onClick={back} disabled={reset.busy}>
                  Reset to the shipped template
                </button>
              )}
            </p>
          </Form>
        ) : (
          <>
            <p>
              Subject: <code>{t.subject}</code>
            </p>
            <h3>Text part</h3>
            <pre class="preview-text">{t.text}</pre>
            <h3>HTML part</h3>
            <pre class="preview-text">{t.html}</pre>
            <button type="button" onClick={runPreview} disabled={show.busy}>
              Preview
            </button>
          </>
        )}
        <Notice text={done} />
        <Problem error={save.error ?? reset.error ?? show.error} />
      </section>
      {preview && <Rendered preview={preview} />}
    </>
  );
}
