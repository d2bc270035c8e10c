// The app's custom organisation roles (GET|POST /v1/organization_roles, PATCH|DELETE .../{key}): every
// organisation of the app offers them beside owner, admin and member. Owners and admins write; viewers read.
import type { Body } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Field, Form } from '../../ui/fields.js';
import { useAction, type Loaded } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';
import { parsePermissions, type OrgRole } from './types.js';

function RoleRow({ appId, role, writer, onChanged }: { appId: string; role: OrgRole; writer: boolean; onChanged: () => void }) {
  const [name, setName] = useState(role.name);
  const [permissions, setPermissions] = useState(role.permissions.filter((p) => p !== 'org:read').join(', '));
  const action = useAction();
  const [done, setDone] = useState<string | undefined>(undefined);
  const save = () =>
    action.run(async () => {
      await api('PATCH', `/v1/organization_roles/${role.key}`, { appId, body: { name: name.trim(), permissions: parsePermissions(permissions) } satisfies Body<'updateOrganizationRole'> });
      setDone(`Saved the role ${role.key}.`);
      onChanged();
    });
  const remove = () => action.run(async () => (await api('DELETE', `/v1/organization_roles/${role.key}`, { appId }), onChanged()));
  return (
    <tr>
      <th scope="row">
        <code>{role.key}</code>
      </th>
      <td>
        {writer ? (
          <Form onSubmit={save} label={`Role ${role.key}`}>
            <Field label={`Name of ${role.key}`} value={name} onValue={setName} required maxLength={100} />
            <Field label={`Permissions of ${role.key}`} value={permissions} onValue={setPermissions} hint="Comma separated; org:read is always held." />
            <div class="actions">
              <button type="submit" disabled={action.busy}>{`Save ${role.key}`}</button>
              <button type="button" class="destructive" disabled={action.busy} onClick={remove}>{`Delete ${role.key}`}</button>
            </div>
          </Form>
        ) : (
          <>
            {role.name}: {role.permissions.join(', ')}
          </>
        )}
        <Notice text={done} />
        <Problem error={action.error} />
      </td>
    </tr>
  );
}

export function Roles({ appId, roles, writer }: { appId: string; roles: Loaded<{ roles: OrgRole[] }>; writer: boolean }) {
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState('');
  const create = useAction();
  const submit = () =>
    create.run(async () => {
      await api('POST', '/v1/organization_roles', { appId, body: { key: key.trim(), name: name.trim(), permissions: parsePermissions(permissions) } satisfies Body<'createOrganizationRole'> });
      setKey('');
      setName('');
      setPermissions('');
      roles.reload();
    });
  const list = roles.data?.roles ?? [];
  return (
    <section aria-labelledby="org-roles">
      <h2 id="org-roles">Custom roles</h2>
      <p>Every organisation of the app has owner, admin and member; these roles are the app's own, offered in each of them.</p>
      <Problem error={roles.error} />
      {roles.data && list.length === 0 && <p>No custom role.</p>}
      {list.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Custom roles: {list.length}</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Name and permissions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((r) => (
                <RoleRow key={r.key} appId={appId} role={r} writer={writer} onChanged={roles.reload} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {writer && (
        <Form onSubmit={submit} label="New role">
          <Field label="Role key" value={key} onValue={setKey} required hint="Lower case letters, digits and _ (billing_manager)." autoComplete="off" />
          <Field label="Role name" value={name} onValue={setName} required maxLength={100} autoComplete="off" />
          <Field label="Role permissions" value={permissions} onValue={setPermissions} hint="Comma separated: built-in ones (org:update, org:members:manage, org:invitations:manage, org:delete) or the app's own." autoComplete="off" />
          <button type="submit" disabled={create.busy}>
            Create role
          </button>
        </Form>
      )}
      <Problem error={create.error} />
    </section>
  );
}
