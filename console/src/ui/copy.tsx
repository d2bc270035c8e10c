import { useId, useState } from 'preact/hooks';

/**
 * Copies `value` to the clipboard; where the browser refuses, selects the field `id` instead. `copied` is
 * the line to announce (role="status") either way.
 */
export function useCopy(id: string, value: string): { copied: string | undefined; copy: () => Promise<void> } {
  const [copied, setCopied] = useState<string | undefined>(undefined);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied('Could not copy: the text is selected, copy it with your keyboard.');
    }
  };
  return { copied, copy };
}

/** A value to paste elsewhere (a redirect URI, a pay-to address): a read-only field with a Copy button. */
export function CopyField({ label, value, hint }: { label: string; value: string; hint?: string }) {
  const id = useId();
  const { copied, copy } = useCopy(id, value);
  return (
    <div class="copy-field">
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input id={id} readOnly value={value} spellcheck={false} autoComplete="off" aria-describedby={hint ? `${id}-hint` : undefined} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <button type="button" onClick={copy} aria-label={`Copy ${label}`}>
          Copy
        </button>
      </div>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {copied && <p role="status">{copied}</p>}
    </div>
  );
}
