// The invitations section of the members page: invite by email with a role (emailed, 7 days, a link to
// /console/accept), the pending ones, revoke. Owners and admins; only an owner invites an owner (the server says so).
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { canWrite, ROLES, type Role, type Tenant } from '../store.js';
import { Choice, Field, Form } from '../ui/fields.js';
import { useAction, useLoad } from '../ui/load.js';
import { Notice, Problem } from '../ui/problem.js';

type Invitation = Ok<'listTenantInvitations'>['invitations'][number];

function Revoke({ tenantId, invitation, onDone }: { tenantId: string; invitation: Invitation; onDone: () => void }) {
  const action = useAction();
  return (
    <>
      <button type="button" class="secondary" disabled={action.busy} onClick={() => action.run(async () => (await api('DELETE', `/v1/tenants/${tenantId}/invitations/${invitation.invitation_id}`), onDone()))}>
        {`Revoke the invitation of ${invitation.email}`}
      </button>
      <Problem error={action.error} />
    </>
  );
}

export function Invitations({ tenant }: { tenant: Tenant }) {
  const list = useLoad(() => api<Ok<'listTenantInvitations'>>('GET', `/v1/tenants/${tenant.tenant_id}/invitations`), [tenant.tenant_id]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [sent, setSent] = useState<string | undefined>(undefined);
  const invite = useAction();
  const writer = canWrite(tenant.role);
  const submit = () =>
    invite.run(async () => {
      setSent(undefined);
      const made = await api<Ok<'createTenantInvitation'>>('POST', `/v1/tenants/${tenant.tenant_id}/invitations`, { body: { email: email.trim(), role } satisfies Body<'createTenantInvitation'> });
      setSent(`Invitation emailed to ${made.email} (${made.role}); it expires ${made.expires_at.slice(0, 10)}.`);
      setEmail('');
      list.reload();
    });
  const pending = list.data?.invitations.filter((i) => i.status === 'pending') ?? [];
  return (
    <section aria-labelledby="invitations">
      <h2 id="invitations">Invitations</h2>
      <Problem error={list.error} />
      {list.data && pending.length === 0 && <p>No pending invitation.</p>}
      {pending.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Pending invitations</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                {writer && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {pending.map((i) => (
                <tr key={i.invitation_id}>
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>
                    <time dateTime={i.expires_at}>{i.expires_at.slice(0, 10)}</time>
                  </td>
                  {writer && (
                    <td>
                      <Revoke tenantId={tenant.tenant_id} invitation={i} onDone={list.reload} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {writer && (
        <Form onSubmit={submit} label="Invite a member">
          <Field label="Email to invite" type="email" required value={email} onValue={setEmail} />
          <Choice label="Role" value={role} onValue={setRole} options={ROLES} />
          <button type="submit" disabled={invite.busy}>
            Send invitation
          </button>
          <Notice text={sent} />
          <Problem error={invite.error} />
        </Form>
      )}
    </section>
  );
}
