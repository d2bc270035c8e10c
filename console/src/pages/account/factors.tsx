// Your account → Second factors: the console user's verified factors (GET /v1/me/factors), each removable
// after a second click (DELETE /v1/me/factors/{id}: a sign-in within 10 minutes, an aal2 session), an
// authenticator app (totp.tsx) or a passkey (passkey.tsx) to add, and the recovery codes: how many are left,
// renewed (shown once).
import { useState } from 'preact/hooks';
import type { Factor } from '@gatehouse/client';
import { gatehouse } from '../../session.js';
import { useAction, useLoad } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';
import { ShownOnce } from '../../ui/secret.js';
import { AddPasskey } from './passkey.js';
import { AddTotp } from './totp.js';

const kind = (f: Factor) => (f.type === 'totp' ? 'Authenticator app' : 'Passkey');
const nameOf = (f: Factor) => (f.friendly_name ? `${kind(f)} “${f.friendly_name}”` : kind(f));

function FactorRow({ factor, onRemoved }: { factor: Factor; onRemoved: () => void }) {
  const [asking, setAsking] = useState(false);
  const remove = useAction();
  return (
    <tr>
      <td>{nameOf(factor)}</td>
      <td>
        <time dateTime={factor.created_at}>{factor.created_at.slice(0, 10)}</time>
      </td>
      <td>{factor.last_used_at ? <time dateTime={factor.last_used_at}>{factor.last_used_at.slice(0, 10)}</time> : 'never'}</td>
      <td>
        {asking ? (
          <span class="actions">
            <button type="button" class="destructive" disabled={remove.busy} onClick={() => remove.run(async () => (await gatehouse().auth.mfa.removeFactor(factor.factor_id), onRemoved()))}>
              {`Yes, remove the ${kind(factor).toLowerCase()}`}
            </button>
            <button type="button" class="secondary" onClick={() => (setAsking(false), remove.clear())}>
              Keep it
            </button>
          </span>
        ) : (
          <button type="button" class="secondary" aria-label={`Remove ${nameOf(factor)}`} onClick={() => setAsking(true)}>
            Remove
          </button>
        )}
        <Problem error={remove.error} />
      </td>
    </tr>
  );
}

export function FactorsSection({ onChanged }: { onChanged: () => void }) {
  const list = useLoad(() => gatehouse().auth.mfa.listFactors(), []);
  const [codes, setCodes] = useState<{ codes: string[]; why: string } | undefined>(undefined);
  // What the last change was, when no recovery codes say it: "Factor removed.", "Passkey added.".
  const [note, setNote] = useState<string | undefined>(undefined);
  const renew = useAction();
  const verified = (list.data?.factors ?? []).filter((f) => f.status === 'verified');
  const added = (what: string) => (recovery: string[]) => {
    setNote(recovery.length > 0 ? undefined : `${what} added.`);
    setCodes(recovery.length > 0 ? { codes: recovery, why: `${what} added. Your recovery codes:` } : undefined);
    list.reload();
    onChanged();
  };
  const renewCodes = () => renew.run(async () => (setCodes({ codes: await gatehouse().auth.mfa.renewRecoveryCodes(), why: 'New recovery codes: the earlier ones no longer work.' }), list.reload()));
  return (
    <section aria-labelledby="factors-title">
      <h2 id="factors-title">Second factors</h2>
      <Problem error={list.error} />
      {list.data && verified.length === 0 && <p>No second factor: a password alone signs you in.</p>}
      {verified.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>{`Your second factors: ${verified.length}`}</caption>
            <thead>
              <tr>
                <th scope="col">Factor</th>
                <th scope="col">Added</th>
                <th scope="col">Last used</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {verified.map((f) => (
                <FactorRow key={f.factor_id} factor={f} onRemoved={() => (setNote('Factor removed.'), setCodes(undefined), list.reload())} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Notice text={note} />
      {list.data && verified.length > 0 && (
        <>
          <h3>Recovery codes</h3>
          <p>{`${list.data.recovery_codes_remaining} unused recovery codes left.`}</p>
          {codes && (
            <>
              <p role="status">{codes.why}</p>
              <ShownOnce label="Your recovery codes" value={codes.codes.join(' ')} hint="Shown once: store them where you keep passwords. Each signs you in once instead of your second factor." />
            </>
          )}
          <button type="button" class="secondary" disabled={renew.busy} onClick={renewCodes}>
            Renew recovery codes
          </button>
          <Problem error={renew.error} />
        </>
      )}
      <h3>Add an authenticator app</h3>
      <AddTotp onAdded={added('Authenticator app')} />
      <h3>Add a passkey</h3>
      <p>A passkey signs you in by itself, with this device's fingerprint, face or PIN: no password, no code.</p>
      <AddPasskey onAdded={added('Passkey')} />
    </section>
  );
}
