// Your account → adding an authenticator app (POST /v1/me/factors/totp, then .../verify with its first code,
// through @gatehouse/client): the QR code (the server's SVG, as an image), the setup link and the secret to
// type in, then the first code; the recovery codes it makes are shown once.
import { useState } from 'preact/hooks';
import type { TotpEnrollment } from '@gatehouse/client';
import { gatehouse } from '../../session.js';
import { Field, Form } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Problem } from '../../ui/problem.js';
import { ShownOnce } from '../../ui/secret.js';

const TOTP_HINT = 'Shown while you add the app: type it in if you cannot scan the code.';

export function AddTotp({ onAdded }: { onAdded: (recoveryCodes: string[]) => void }) {
  const [name, setName] = useState('');
  const [code, setCode] = useState('');
  const [enrollment, setEnrollment] = useState<TotpEnrollment | undefined>(undefined);
  const start = useAction();
  const confirm = useAction();
  const begin = () =>
    start.run(async () => {
      setEnrollment(await gatehouse().auth.mfa.enrollTotp({ friendlyName: name.trim() || undefined }));
      setCode('');
    });
  const finish = () =>
    confirm.run(async () => {
      const added = await gatehouse().auth.mfa.confirmTotp({ factorId: enrollment!.factor_id, code: code.trim() });
      setEnrollment(undefined);
      setName('');
      onAdded(added.recovery_codes);
    });
  if (!enrollment) {
    return (
      <>
        <Form onSubmit={begin} label="Add an authenticator app">
          <Field label="Name of the app (optional)" value={name} onValue={setName} maxLength={100} autoComplete="off" hint="Shown in the list of your factors, e.g. the phone it is on." />
          <button type="submit" disabled={start.busy}>
            Add an authenticator app
          </button>
        </Form>
        <Problem error={start.error} />
      </>
    );
  }
  return (
    <div class="enrol">
      <p>Scan this code with your authenticator app, or type the secret key into it, then enter the 6-digit code it shows.</p>
      <img class="qr" src={`data:image/svg+xml,${encodeURIComponent(enrollment.totp.qr_code)}`} alt="QR code of the authenticator app's setup link" width={200} height={200} />
      <ShownOnce label="Secret key" value={enrollment.totp.secret} hint={TOTP_HINT} />
      <ShownOnce label="Setup link (otpauth)" value={enrollment.totp.uri} hint={TOTP_HINT} />
      <Form onSubmit={finish} label="Confirm the authenticator app">
        <Field label="Code from your authenticator app" value={code} onValue={setCode} inputMode="numeric" autoComplete="one-time-code" required />
        <button type="submit" disabled={confirm.busy}>
          Confirm
        </button>
        <button type="button" class="secondary" onClick={() => (setEnrollment(undefined), confirm.clear())}>
          Cancel
        </button>
      </Form>
      <Problem error={confirm.error} />
    </div>
  );
}
