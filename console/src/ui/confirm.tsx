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
