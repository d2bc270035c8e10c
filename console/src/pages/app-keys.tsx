// /console/t/:tenant/apps/:app/keys: a new secret key (shown once, with a copy button; the old one dies now
// or after a grace period) and a new signing key (used at once; tokens signed by the old one stay valid
// until they expire). Owners and admins; a viewer reads the publishable key only.
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { Link } from '../router.js';
import { canWrite } from '../store.js';
import { Choice, Form } from '../ui/fields.js';
import { useAction, useLoad } from '../ui/load.js';
import { Pending } from '../ui/pending.js';
import { Notice, Problem } from '../ui/problem.js';
import { ShownOnce } from '../ui/secret.js';
import type { App } from './app-settings.js';

const GRACE: [string, string][] = [
  ['0', 'Now'],
  ['3600', 'In one hour'],
  ['86400', 'In one day'],
  ['604800', 'In seven days'],
];

function SecretKey({ appId }: { appId: string }) {
  const [keep, setKeep] = useState('0');
  const [rotated, setRotated] = useState<Ok<'rotateSecretKey'> | undefined>(undefined);
  const action = useAction();
  const rotate = () => action.run(async () => setRotated(await api<Ok<'rotateSecretKey'>>('POST', `/v1/apps/${appId}/secret_keys`, { body: { keep_old_for_seconds: Number(keep) } satisfies Body<'rotateSecretKey'> })));
  return (
    <section aria-labelledby="secret-key">
      <h2 id="secret-key">Secret key</h2>
      <p>Your servers call Gatehouse with it. A new one replaces the current one; Gatehouse keeps only its hash.</p>
      <Form onSubmit={rotate} label="Rotate the secret key">
        <Choice label="The current secret key stops working" value={keep} onValue={setKeep} options={GRACE} hint="Keep the old key a while to roll the new one out without downtime." />
        <button type="submit" disabled={action.busy}>
          Rotate the secret key
        </button>
      </Form>
      <Problem error={action.error} />
      {rotated && (
        <>
          <ShownOnce label="New secret key" value={rotated.secret_key} />
          <Notice text={rotated.old_key_expires_at && Date.parse(rotated.old_key_expires_at) > Date.now() + 1000 ? `The old key works until ${rotated.old_key_expires_at}.` : 'The old key no longer works.'} />
        </>
      )}
    </section>
  );
}

function SigningKey({ appId }: { appId: string }) {
  const [kid, setKid] = useState<string | undefined>(undefined);
  const action = useAction();
  const rotate = () => action.run(async () => setKid((await api<Ok<'rotateSigningKey'>>('POST', `/v1/apps/${appId}/signing_keys`)).kid));
  return (
    <section aria-labelledby="signing-key">
      <h2 id="signing-key">Signing key</h2>
      <p>Access tokens are signed with it (RS256; the public half is in the JWKS). A new one signs from now on; tokens signed by the old one stay valid until they expire.</p>
      <button type="button" onClick={rotate} disabled={action.busy}>
        Rotate the signing key
      </button>
      <Problem error={action.error} />
      <Notice text={kid ? `New signing key: ${kid}.` : undefined} />
    </section>
  );
}

export function AppKeysPage({ tenant, params }: PageProps) {
  const t = tenant!;
  const app = useLoad(() => api<App>('GET', `/v1/apps/${params.app}`), [params.app]);
  if (app.error || !app.data) return <Pending load={app} text="Loading the app…" />;
  return (
    <>
      <p>
        <Link href={`/t/${t.tenant_id}/apps/${app.data.app_id}`}>{app.data.name}</Link> · publishable key (for browsers, not a secret): <code>{app.data.publishable_key}</code>
      </p>
      {canWrite(t.role) ? (
        <>
          <SecretKey appId={app.data.app_id} />
          <SigningKey appId={app.data.app_id} />
        </>
      ) : (
        <p>Viewers cannot rotate keys.</p>
      )}
    </>
  );
}
