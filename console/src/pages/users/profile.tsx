// A user's record (docs/users.md): who they are and whether they are banned; an owner or admin bans and
// unbans (PATCH /v1/users/{id} {banned}: a ban ends every session at once) and edits the metadata.
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure } from '../../api.js';
import { Form, TextArea } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';
import { When } from '../../ui/time.js';
import type { User } from './paths.js';

type MetadataName = 'public_metadata' | 'private_metadata' | 'unsafe_metadata';
const METADATA: [MetadataName, string, string][] = [
  ['public_metadata', 'Public metadata', 'Written by the server, read by the user too (GET /v1/me).'],
  ['private_metadata', 'Private metadata', 'Written and read by the server only.'],
  ['unsafe_metadata', 'Unsafe metadata', 'Written by the user (PATCH /v1/me): never trust it.'],
];
const text = (value: unknown) => JSON.stringify(value ?? {}, null, 2);

export function Profile({ appId, user, writer, onChanged }: { appId: string; user: User; writer: boolean; onChanged: (user: User) => void }) {
  const action = useAction();
  const [done, setDone] = useState<string | undefined>(undefined);
  const setBanned = (banned: boolean) =>
    action.run(async () => {
      onChanged(await api<User>('PATCH', `/v1/users/${user.id}`, { appId, body: { banned } }));
      setDone(banned ? 'Banned: every session ended, every sign-in refused.' : 'Unbanned: the user may sign in again.');
    });
  return (
    <section aria-labelledby="user-profile">
      <h2 id="user-profile">{user.email ?? `Bot ${user.id}`}</h2>
      <dl class="settings">
        <dt>User id</dt>
        <dd>{user.id}</dd>
        <dt>Email verified</dt>
        <dd>{user.email_verified ? 'yes' : 'no'}</dd>
        <dt>Status</dt>
        <dd>{user.banned ? 'banned' : 'active'}</dd>
        <dt>Locale</dt>
        <dd>{user.locale ?? 'none (English)'}</dd>
        {user.external_id && (
          <>
            <dt>External id</dt>
            <dd>{user.external_id}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <When at={user.created_at} />
        </dd>
        <dt>Updated</dt>
        <dd>
          <When at={user.updated_at} />
        </dd>
      </dl>
      {writer && (
        <p class="actions">
          <button type="button" class={user.banned ? '' : 'destructive'} disabled={action.busy} onClick={() => setBanned(!user.banned)}>
            {user.banned ? 'Unban user' : 'Ban user'}
          </button>
        </p>
      )}
      <Notice text={done} />
      <Problem error={action.error} />
    </section>
  );
}

export function Metadata({ appId, user, writer, onChanged }: { appId: string; user: User; writer: boolean; onChanged: (user: User) => void }) {
  const initial = () => Object.fromEntries(METADATA.map(([name]) => [name, text(user[name])])) as Record<MetadataName, string>;
  const [fields, setFields] = useState(initial);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const action = useAction();
  useEffect(() => setFields(initial()), [user]);
  const save = () =>
    action.run(async () => {
      setSaved(undefined);
      const body: Record<string, unknown> = {};
      for (const [name, label] of METADATA) {
        if (fields[name] === text(user[name])) continue;
        let value: unknown;
        try {
          value = JSON.parse(fields[name]);
        } catch {
          throw new ApiFailure(0, 'invalid_json', `${label} is not valid JSON`);
        }
        if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ApiFailure(0, 'invalid_json', `${label} must be a JSON object`);
        body[name] = value;
      }
      if (Object.keys(body).length === 0) return setSaved('Nothing changed.');
      onChanged(await api<User>('PATCH', `/v1/users/${user.id}`, { appId, body }));
      setSaved(`Saved: ${Object.keys(body).join(', ')}.`);
    });
  return (
    <section aria-labelledby="user-metadata">
      <h2 id="user-metadata">Metadata</h2>
      {writer ? (
        <Form onSubmit={save} label="Metadata">
          {METADATA.map(([name, label, hint]) => (
            <TextArea key={name} label={label} value={fields[name]} onValue={(v) => setFields({ ...fields, [name]: v })} hint={`${hint} A JSON object, at most 8 KiB.`} rows={4} />
          ))}
          <button type="submit" disabled={action.busy}>
            Save metadata
          </button>
          <Notice text={saved} />
          <Problem error={action.error} />
        </Form>
      ) : (
        <dl class="settings">
          {METADATA.map(([name, label]) => (
            <Fragment key={name}>
              <dt>{label}</dt>
              <dd>
                <pre>{text(user[name])}</pre>
              </dd>
            </Fragment>
          ))}
        </dl>
      )}
    </section>
  );
}
