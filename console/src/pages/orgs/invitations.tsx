// The invitations of an organisation: invite an email with a role (emailed with a link to the app, 7 days),
// every invitation with its status, revoke a pending one. Owners and admins; a viewer reads the list.
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Choice, Field, Form } from '../../ui/fields.js';
import { useAction, useLoad } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';
import type { OrgInvitation } from './types.js';

function Revoke({ appId, orgId, invitation, onDone }: { appId: string; orgId: string; invitation: OrgInvitation; onDone: () => void }) {
  const action = useAction();
  const revoke = () => action.run(async () => (await api('DELETE', `/v1/organizations/${orgId}/invitations/${invitation.invitation_id}`, { appId }), onDone()));
  return (
    <>
      <button type="button" class="secondary" disabled={action.busy} onClick={revoke}>
        {`Revoke the invitation of ${invitation.email}`}
      </button>
      <Problem error={action.error} />
    </>
  );
}

export function Invitations({ appId, orgId, writer, roles }: { appId: string; orgId: string; writer: boolean; roles: [string, string][] }) {
  const list = useLoad(() => api<Ok<'listOrganizationInvitations'>>('GET', `/v1/organizations/${orgId}/invitations`, { appId, query: { limit: 100 } }), [appId, orgId]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const [sent, setSent] = useState<string | undefined>(undefined);
  const invite = useAction();
  const submit = () =>
    invite.run(async () => {
      setSent(undefined);
      const made = await api<Ok<'createOrganizationInvitation'>>('POST', `/v1/organizations/${orgId}/invitations`, { appId, body: { email: email.trim(), role } satisfies Body<'createOrganizationInvitation'> });
      setSent(`Invitation emailed to ${made.email} (${made.role}); it expires ${made.expires_at.slice(0, 10)}.`);
      setEmail('');
      list.reload();
    });
  const all = list.data?.invitations ?? [];
  return (
    <section aria-labelledby="org-invitations">
      <h2 id="org-invitations">Invitations</h2>
      <Problem error={list.error} />
      {list.data && all.length === 0 && <p>No invitation.</p>}
      {all.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Invitations: {all.length}</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Expires</th>
                {writer && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {all.map((i) => (
                <tr key={i.invitation_id}>
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>{i.status}</td>
                  <td>
                    <time dateTime={i.expires_at}>{i.expires_at.slice(0, 10)}</time>
                  </td>
                  {writer && <td>{i.status === 'pending' ? <Revoke appId={appId} orgId={orgId} invitation={i} onDone={list.reload} /> : '—'}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {writer && (
        <>
          <h3>Invite</h3>
          <Form onSubmit={submit} label="Invite to the organisation">
            <Field label="Email to invite" type="email" required value={email} onValue={setEmail} autoComplete="off" hint="Emailed a link to the app's first allowed origin with ?invitation_token=; they accept signed in with this verified address." />
            <Choice label="Role of the invited" value={role} onValue={setRole} options={roles} />
            <button type="submit" disabled={invite.busy}>
              Send invitation
            </button>
          </Form>
          <Notice text={sent} />
          <Problem error={invite.error} />
        </>
      )}
    </section>
  );
}
