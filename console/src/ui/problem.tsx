import { asFailure } from '../api.js';

/** A refusal as the server said it: its detail, and its code in small print. Announced (role="alert"). */
export function Problem({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const failure = asFailure(error);
  const detail = failure.detail ? failure.detail[0]!.toUpperCase() + failure.detail.slice(1) : 'Something went wrong';
  return (
    <div class="problem" role="alert">
      <p>{detail.endsWith('.') ? detail : `${detail}.`}</p>
      <p class="code">
        Error code: <code>{failure.code}</code>
        {failure.status ? ` (HTTP ${failure.status})` : ''}
      </p>
    </div>
  );
}

/** A short confirmation that something worked, announced politely. */
export function Notice({ text }: { text: string | undefined }) {
  return text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null;
}
