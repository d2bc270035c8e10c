// What an owner or admin does to a user beyond their record: issue a sign-in token (POST /v1/sign_in_tokens:
// shown once, with its expiry), export them (GET /v1/users/{id}/export, saved as a JSON file), and delete
// them (DELETE /v1/users/{id}, the email typed to confirm; then back to the users list).
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { navigate } from '../../router.js';
import { saveAs } from '../../transfer.js';
import { TypedConfirm } from '../../ui/confirm.js';
import { Field, Form } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';
import { ShownOnce } from '../../ui/secret.js';
import { When } from '../../ui/time.js';
import type { User } from './paths.js';

export function SignInTokenForm({ appId, user, onIssued }: { appId: string; user: User; onIssued: () => void }) {
  const [seconds, setSeconds] = useState('300');
  const [issued, setIssued] = useState<Ok<'createSignInToken'> | undefined>(undefined);
  const action = useAction();
  const issue = () =>
    action.run(async () => {
      setIssued(undefined);
      setIssued(await api<Ok<'createSignInToken'>>('POST', '/v1/sign_in_tokens', { appId, body: { user_id: user.id, expires_in_seconds: Number(seconds) } satisfies Body<'createSignInToken'> }));
      onIssued();
    });
  return (
    <section aria-labelledby="sign-in-token">
      <h2 id="sign-in-token">Sign-in token</h2>
      <p>Starts a session for this user on your word (support, tests, a migration): hand the tokens to them over a safe channel.</p>
      <Form onSubmit={issue} label="Issue a sign-in token">
        <Field label="Access token lifetime (seconds)" inputMode="numeric" value={seconds} onValue={setSeconds} hint="At least 1; the server caps it (MAX_SIGNIN_TOKEN_LIFETIME_SECONDS)." />
        <button type="submit" disabled={action.busy}>
          Issue sign-in token
        </button>
      </Form>
      <Problem error={action.error} />
      {issued && (
        <>
          <p role="status">
            {'Issued: the access token expires '}
            <When at={issued.expires_at} />
            {'. The refresh token renews the session through POST /v1/tokens/session.'}
          </p>
          <ShownOnce label="Access token (JWT)" value={issued.token} />
          <ShownOnce label="Refresh token" value={issued.refresh_token} />
        </>
      )}
    </section>
  );
}

export function Export({ appId, user, onExported }: { appId: string; user: User; onExported: () => void }) {
  const action = useAction();
  const [done, setDone] = useState<string | undefined>(undefined);
  const file = `user-${user.id}.json`;
  const run = () =>
    action.run(async () => {
      const data = await api<Ok<'exportUser'>>('GET', `/v1/users/${user.id}/export`, { appId });
      saveAs(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }), file);
      setDone(`Saved ${file}.`);
      onExported();
    });
  return (
    <section aria-labelledby="user-export">
      <h2 id="user-export">Export</h2>
      <p>Everything the app holds about the user (no password, hash or secret), as one JSON file; the export is recorded as an event.</p>
      <p class="actions">
        <button type="button" class="secondary" disabled={action.busy} onClick={run}>
          Export as JSON
        </button>
      </p>
      <Notice text={done} />
      <Problem error={action.error} />
    </section>
  );
}

export function DeleteUser({ appId, user, backTo }: { appId: string; user: User; backTo: string }) {
  const action = useAction();
  const remove = () =>
    action.run(async () => {
      await api('DELETE', `/v1/users/${user.id}`, { appId });
      navigate(backTo);
    });
  return <TypedConfirm what="user" expected={user.email ?? user.id} action={action} onConfirm={remove} />;
}
