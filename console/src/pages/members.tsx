// /console/t/:tenant/members: the tenant's members (role change, removal; the last owner stays, 409) and
// its invitations (pages/invitations.tsx). Owners and admins write; a viewer reads.
import type { Body, Ok } from '@gatehouse/api-types';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { gatehouse } from '../session.js';
import { canWrite, ROLES, type Role, type Tenant } from '../store.js';
import { refreshTenants } from '../tenants.js';
import { useAction, useLoad } from '../ui/load.js';
import { MemberRoleCell } from '../ui/member-role.js';
import { Problem } from '../ui/problem.js';
import { Invitations } from './invitations.js';

type Member = Ok<'listTenantMembers'>['members'][number];

function MemberRow({ tenant, member, me, onChanged }: { tenant: Tenant; member: Member; me: string | undefined; onChanged: () => void }) {
  const [done, setDone] = useState<string | undefined>(undefined);
  const action = useAction();
  const who = member.email ?? member.user_id;
  const save = (role: Role) =>
    action.run(async () => {
      await api('PATCH', `/v1/tenants/${tenant.tenant_id}/members/${member.user_id}`, { body: { role } satisfies Body<'updateTenantMember'> });
      setDone(`${who} is now ${role}.`);
      onChanged();
    });
  const remove = () =>
    action.run(async () => {
      await api('DELETE', `/v1/tenants/${tenant.tenant_id}/members/${member.user_id}`);
      if (member.user_id === me) await refreshTenants();
      onChanged();
    });
  return (
    <tr>
      <td>
        {who}
        {member.user_id === me && ' (you)'}
      </td>
      <MemberRoleCell who={who} current={member.role} options={ROLES} writer={canWrite(tenant.role)} action={action} done={done} removeLabel={member.user_id === me ? 'Leave the tenant' : `Remove ${who}`} onSave={save} onRemove={remove} />
    </tr>
  );
}

export function MembersPage({ tenant }: PageProps) {
  const t = tenant!;
  const members = useLoad(() => api<Ok<'listTenantMembers'>>('GET', `/v1/tenants/${t.tenant_id}/members`), [t.tenant_id]);
  const [me, setMe] = useState<string | undefined>(undefined);
  useEffect(() => void gatehouse().auth.getSession().then((s) => setMe(s?.user_id)), []);
  return (
    <>
      <section aria-labelledby="members">
        <h2 id="members">Members</h2>
        <Problem error={members.error} />
        {members.data && (
          <div class="table-wrap">
            <table>
              <caption>Members of {t.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Role</th>
                </tr>
              </thead>
              <tbody>
                {members.data.members.map((m) => (
                  <MemberRow key={m.user_id} tenant={t} member={m} me={me} onChanged={members.reload} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <Invitations tenant={t} />
    </>
  );
}
