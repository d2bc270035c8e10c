// Your account → adding a passkey (POST /v1/me/passkeys/options, navigator.credentials.create, then
// POST /v1/me/passkeys, through @gatehouse/client): an optional name, then the device's own prompt. The
// console app's relying party is PUBLIC_BASE_URL's host (docs/console.md, "Passkeys"). The first factor's
// recovery codes are shown once by the factors section.
import { useState } from 'preact/hooks';
import { gatehouse } from '../../session.js';
import { Field, Form } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Problem } from '../../ui/problem.js';

export function AddPasskey({ onAdded }: { onAdded: (recoveryCodes: string[]) => void }) {
  const [name, setName] = useState('');
  const add = useAction();
  const register = () =>
    add.run(async () => {
      const added = await gatehouse().auth.mfa.registerPasskey({ friendlyName: name.trim() || undefined });
      setName('');
      onAdded(added.recovery_codes);
    });
  return (
    <>
      <Form onSubmit={register} label="Add a passkey">
        <Field label="Name of the passkey (optional)" value={name} onValue={setName} maxLength={100} autoComplete="off" hint="Shown in the list of your factors, e.g. the laptop or phone that keeps it." />
        <button type="submit" disabled={add.busy}>
          Add a passkey
        </button>
      </Form>
      <Problem error={add.error} />
    </>
  );
}
