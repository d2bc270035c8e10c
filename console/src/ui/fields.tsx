import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

type InputProps = {
  label: string;
  value: string;
  onValue: (value: string) => void;
  hint?: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'search' | 'url' | 'datetime-local';
  autoComplete?: string;
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  inputMode?: 'numeric' | 'text' | 'email';
  spellcheck?: boolean;
  readOnly?: boolean;
  placeholder?: string;
};

/** A labelled text input (its hint tied to it by aria-describedby). */
export function Field({ label, value, onValue, hint, ...rest }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} value={value} onInput={(e) => onValue((e.target as HTMLInputElement).value)} aria-describedby={hint ? `${id}-hint` : undefined} {...(rest as object)} />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** A labelled select over `options` ([value, text]); the value is one of theirs (V: a role, a kind...). */
export function Choice<V extends string = string>({ label, value, onValue, options, hint }: { label: string; value: V; onValue: (value: V) => void; options: [V, string][]; hint?: string }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onValue((e.target as HTMLSelectElement).value as V)} aria-describedby={hint ? `${id}-hint` : undefined}>
        {options.map(([v, text]) => (
          <option value={v} key={v}>
            {text}
          </option>
        ))}
      </select>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** A labelled checkbox. */
export function Check({ label, checked, onChecked, hint }: { label: string; checked: boolean; onChecked: (on: boolean) => void; hint?: string }) {
  const id = useId();
  return (
    <div class="field check">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChecked((e.target as HTMLInputElement).checked)} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** A form that calls `onSubmit` without reloading the page. */
export function Form({ onSubmit, children, label }: { onSubmit: () => void; children: ComponentChildren; label?: string }) {
  return (
    <form
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

/** A labelled multi-line text field. */
export function TextArea({ label, value, onValue, hint, rows = 3 }: { label: string; value: string; onValue: (value: string) => void; hint?: string; rows?: number }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} rows={rows} value={value} onInput={(e) => onValue((e.target as HTMLTextAreaElement).value)} aria-describedby={hint ? `${id}-hint` : undefined} spellcheck={false} />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}
