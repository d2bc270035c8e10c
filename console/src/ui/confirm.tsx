import { useState } from 'preact/hooks';
import { Field, Form } from './fields.js';
import { Problem } from './problem.js';
import type { Action } from './load.js';

/**
 * A destructive action behind a typed confirmation: the button works only once `expected` (the thing's
 * name) is typed exactly.
 */
export function TypedConfirm({ what, expected, action, onConfirm, button = 'Delete' }: { what: string; expected: string; action: Action; onConfirm: () => void; button?: string }) {
  const [typed, setTyped] = useState('');
  const ready = typed === expected;
  return (
    <section class="danger" aria-labelledby="danger-title">
      <h2 id="danger-title">{`${button} ${what}`}</h2>
      <p>
        This cannot be undone. Type <strong class="typed">{expected}</strong> to confirm.
      </p>
      <Form onSubmit={() => ready && onConfirm()} label={`${button} ${what}`}>
        <Field label={`Type ${expected} to confirm`} value={typed} onValue={setTyped} autoComplete="off" spellcheck={false} />
        <button type="submit" class="destructive" disabled={!ready || action.busy} aria-disabled={!ready}>
          {`${button} ${what}`}
        </button>
      </Form>
      <Problem error={action.error} />
    </section>
  );
}

/**
 * A destructive action asked once more where the thing has no name worth typing (a row, an object): what
 * goes, the destructive `button` and "Keep it".
 */
export function AskFirst({ id, title, text, button, action, onConfirm, onCancel }: { id: string; title: string; text: string; button: string; action: Action; onConfirm: () => void; onCancel: () => void }) {
  return (
    <section class="danger" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <p>{text}</p>
      <p class="actions">
        <button type="button" class="destructive" onClick={onConfirm} disabled={action.busy}>
          {button}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Keep it
        </button>
      </p>
      <Problem error={action.error} />
    </section>
  );
}
