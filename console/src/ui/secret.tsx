import { useId } from 'preact/hooks';
import { useCopy } from './copy.js';

/**
 * A secret Gatehouse shows once (a new secret key, an API token): in a read-only field with a copy button,
 * and a line saying it will not be shown again. The page drops it when the person leaves.
 */
export function ShownOnce({ label, value, hint = 'Shown once: store it now. Gatehouse keeps only its hash and cannot show it again.' }: { label: string; value: string; hint?: string }) {
  const id = useId();
  const { copied, copy } = useCopy(id, value);
  return (
    <div class="shown-once">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input id={id} readOnly value={value} spellcheck={false} autoComplete="off" onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p class="hint">{hint}</p>
      {copied && <p role="status">{copied}</p>}
    </div>
  );
}
