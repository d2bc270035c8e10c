// The members of an organisation: add a user of the app (by id, or by email looked up with GET /v1/users),
// change a role, remove (the last owner stays: the server's 409). A page of 50 at a time, `?cursor=` in the
// address. Owners and admins of the tenant write; a viewer reads.
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api, ApiFailure } from '../../api.js';
import { Choice, Field, Form } from '../../ui/fields.js';
import { useAction, useLoad } from '../../ui/load.js';
import { MemberRoleCell } from '../../ui/member-role.js';
import { Pager } from '../../ui/pager.js';
import { Notice, Problem } from '../../ui/problem.js';
import type { OrgMember } from './types.js';

interface Props {
  appId: string;
  orgId: string;
  base: string;
  cursor: string;
  writer: boolean;
  roles: [string, string][];
  onChanged: () => void;
}

function MemberRow({ appId, orgId, member, writer, roles, onChanged }: Omit<Props, 'base' | 'cursor'> & { member: OrgMember }) {
  const [done, setDone] = useState<string | undefined>(undefined);
  const action = useAction();
  const who = member.email ?? member.user_id;
  const path = `/v1/organizations/${orgId}/members/${member.user_id}`;
  const save = (role: string) => action.run(async () => (await api('PATCH', path, { appId, body: { role } }), setDone(`${who} is now ${role}.`), onChanged()));
  const remove = () => action.run(async () => (await api('DELETE', path, { appId }), onChanged()));
  const options = roles.some(([key]) => key === member.role) ? roles : [...roles, [member.role, member.role] as [string, string]];
  return (
    <tr>
      <td>{who}</td>
      <MemberRoleCell who={who} current={member.role} options={options} writer={writer} action={action} done={done} removeLabel={`Remove ${who}`} onSave={save} onRemove={remove} />
    </tr>
  );
}

function AddMember({ appId, orgId, roles, onAdded }: { appId: string; orgId: string; roles: [string, string][]; onAdded: (text: string) => void }) {
  const [who, setWho] = useState('');
  const [role, setRole] = useState('member');
  const add = useAction();
  const submit = () =>
    add.run(async () => {
      const given = who.trim();
      let userId = given;
      if (given.includes('@')) {
        const found = await api<Ok<'listUsers'>>('GET', '/v1/users', { appId, query: { email: given, limit: 1 } });
        if (!found.users[0]) throw new ApiFailure(0, 'no_such_user', `no user of this app has the email ${given}`);
        userId = found.users[0].id;
      }
      const member = await api<Ok<'addOrganizationMember'>>('POST', `/v1/organizations/${orgId}/members`, { appId, body: { user_id: userId, role } satisfies Body<'addOrganizationMember'> });
      setWho('');
      onAdded(`Added ${member.email ?? member.user_id} as ${member.role}.`);
    });
  return (
    <Form onSubmit={submit} label="Add a member">
      <Field label="User id or email" value={who} onValue={setWho} required hint="A user of this app: their id, or their email (looked up exactly)." autoComplete="off" spellcheck={false} />
      <Choice label="Role of the new member" value={role} onValue={setRole} options={roles} />
      <button type="submit" disabled={add.busy}>
        Add member
      </button>
      <Problem error={add.error} />
    </Form>
  );
}

export function Members({ appId, orgId, base, cursor, writer, roles, onChanged }: Props) {
  const list = useLoad(() => api<Ok<'listOrganizationMembers'>>('GET', `/v1/organizations/${orgId}/members`, { appId, query: { cursor: cursor || undefined } }), [appId, orgId, cursor]);
  const [added, setAdded] = useState<string | undefined>(undefined);
  const changed = () => (list.reload(), onChanged());
  return (
    <section aria-labelledby="org-members">
      <h2 id="org-members">Members</h2>
      <Problem error={list.error} />
      {list.data && list.data.members.length === 0 && <p>No member{cursor ? ' on this page' : ' yet'}.</p>}
      {list.data && list.data.members.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>{`Members${cursor ? ' (a later page)' : ''}`}</caption>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Role</th>
              </tr>
            </thead>
            <tbody>
              {list.data.members.map((m) => (
                <MemberRow key={m.user_id} appId={appId} orgId={orgId} member={m} writer={writer} roles={roles} onChanged={changed} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager base={base} cursor={cursor} next={list.data?.next_cursor} first="First page of members" later="Next page of members" />
      {writer && (
        <>
          <h3>Add a member</h3>
          <Notice text={added} />
          <AddMember appId={appId} orgId={orgId} roles={roles} onAdded={(text) => (setAdded(text), changed())} />
        </>
      )}
    </section>
  );
}
