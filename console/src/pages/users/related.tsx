// A user's second factors (GET /v1/users/{id}/factors: never a secret) and organisations
// (GET /v1/users/{id}/organizations, with their role in each). Read only.
import type { Ok } from '@gatehouse/api-types';
import { api } from '../../api.js';
import { useLoad } from '../../ui/load.js';
import { Problem } from '../../ui/problem.js';
import { When } from '../../ui/time.js';

export function Factors({ appId, userId }: { appId: string; userId: string }) {
  const list = useLoad(() => api<Ok<'listUserFactors'>>('GET', `/v1/users/${userId}/factors`, { appId }), [appId, userId]);
  const data = list.data;
  return (
    <section aria-labelledby="user-factors">
      <h2 id="user-factors">Second factors</h2>
      <Problem error={list.error} />
      {data && data.factors.length === 0 && <p>No second factor.</p>}
      {data && data.factors.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>{`Second factors: ${data.factors.length}; recovery codes left: ${data.recovery_codes_remaining}`}</caption>
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Added</th>
                <th scope="col">Last used</th>
              </tr>
            </thead>
            <tbody>
              {data.factors.map((f) => (
                <tr key={f.factor_id}>
                  <td>{f.type === 'totp' ? 'authenticator app' : 'passkey'}</td>
                  <td>{f.friendly_name ?? '—'}</td>
                  <td>{f.status}</td>
                  <td>
                    <When at={f.created_at} />
                  </td>
                  <td>
                    <When at={f.last_used_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function Organizations({ appId, userId }: { appId: string; userId: string }) {
  const list = useLoad(() => api<Ok<'listUserOrganizations'>>('GET', `/v1/users/${userId}/organizations`, { appId, query: { limit: 100 } }), [appId, userId]);
  const orgs = list.data?.organizations;
  return (
    <section aria-labelledby="user-orgs">
      <h2 id="user-orgs">Organisations</h2>
      <Problem error={list.error} />
      {orgs && orgs.length === 0 && <p>Not a member of any organisation.</p>}
      {orgs && orgs.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>{`Organisations: ${orgs.length}${list.data?.next_cursor ? ' (the first 100)' : ''}`}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Slug</th>
                <th scope="col">Role</th>
              </tr>
            </thead>
            <tbody>
              {orgs.map((o) => (
                <tr key={o.organization_id}>
                  <td>{o.name}</td>
                  <td>{o.slug}</td>
                  <td>{o.role ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
