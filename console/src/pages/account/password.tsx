// Your account → Password: the signed-in console user changes their own password (POST /v1/me/password
// through @gatehouse/client): the current one is asked, and every other session is signed out.
import { useState } from 'preact/hooks';
import { gatehouse } from '../../session.js';
import { Field, Form } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';

export function PasswordSection({ onChanged }: { onChanged: () => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const change = useAction();
  const submit = () =>
    change.run(async () => {
      setDone(false);
      await gatehouse().auth.updatePassword({ password: next, currentPassword: current });
      setCurrent('');
      setNext('');
      setDone(true);
      onChanged();
    });
  return (
    <section aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <Form onSubmit={submit} label="Change your password">
        <Field label="Current password" type="password" required value={current} onValue={setCurrent} autoComplete="current-password" />
        <Field label="New password" type="password" required value={next} onValue={setNext} autoComplete="new-password" hint="8 to 256 characters. Your other sessions are signed out; this one stays." />
        <button type="submit" disabled={change.busy}>
          Change password
        </button>
      </Form>
      <Notice text={done ? 'Password changed. Your other sessions are signed out.' : undefined} />
      <Problem error={change.error} />
    </section>
  );
}
