// /console/t/:tenant/apps/:app/organizations: the app's organisations, a page at a time by keyset
// (GET /v1/organizations with X-App-Id: `next_cursor` becomes `?cursor=`), a new one (POST; owner, admin),
// and the app's custom roles (orgs/roles.tsx). A viewer reads.
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { Link, navigate } from '../router.js';
import { canWrite } from '../store.js';
import { Field, Form } from '../ui/fields.js';
import { useAction, useLoad } from '../ui/load.js';
import { Pager } from '../ui/pager.js';
import { LoadStatus } from '../ui/pending.js';
import { Problem } from '../ui/problem.js';
import { Roles } from './orgs/roles.js';
import { orgHref, orgsHref } from './orgs/types.js';

const PAGE = 25;

function NewOrganization({ appId, tenantId }: { appId: string; tenantId: string }) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const create = useAction();
  const submit = () =>
    create.run(async () => {
      const made = await api<Ok<'createOrganization'>>('POST', '/v1/organizations', { appId, body: { name: name.trim(), ...(slug.trim() ? { slug: slug.trim() } : {}) } satisfies Body<'createOrganization'> });
      navigate(orgHref(tenantId, appId, made.organization_id));
    });
  return (
    <section aria-labelledby="new-org">
      <h2 id="new-org">New organisation</h2>
      <Form onSubmit={submit} label="New organisation">
        <Field label="Organisation name" value={name} onValue={setName} required maxLength={100} autoComplete="off" />
        <Field label="Slug (optional)" value={slug} onValue={setSlug} hint="Lower case letters, digits and -, unique in the app; made from the name when empty." autoComplete="off" spellcheck={false} />
        <button type="submit" disabled={create.busy}>
          Create organisation
        </button>
      </Form>
      <p class="hint">It starts with no member: add its first owner on its page.</p>
      <Problem error={create.error} />
    </section>
  );
}

export function OrganizationsPage({ params, query, tenant }: PageProps) {
  const appId = params.app!;
  const tenantId = params.tenant!;
  const cursor = query.get('cursor') ?? '';
  const writer = canWrite(tenant?.role);
  const list = useLoad(() => api<Ok<'listOrganizations'>>('GET', '/v1/organizations', { appId, query: { limit: PAGE, cursor: cursor || undefined } }), [appId, cursor]);
  const roles = useLoad(() => api<Ok<'listOrganizationRoles'>>('GET', '/v1/organization_roles', { appId }), [appId]);
  const base = orgsHref(tenantId, appId);
  return (
    <>
      <LoadStatus load={list} text="Loading organisations…" reloading />
      {list.data && !list.loading && (
        <>
          <div class="table-wrap">
            <table>
              <caption>{`Organisations${cursor ? ' (a later page)' : ''}`}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Slug</th>
                  <th scope="col">Members</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.organizations.map((o) => (
                  <tr key={o.organization_id}>
                    <td>
                      <Link href={orgHref(tenantId, appId, o.organization_id)}>{o.name}</Link>
                    </td>
                    <td>
                      <code>{o.slug}</code>
                    </td>
                    <td>{o.members_count}</td>
                    <td>
                      <time dateTime={o.created_at}>{o.created_at.slice(0, 10)}</time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.data.organizations.length === 0 && <p>No organisation on this page.</p>}
          <Pager base={base} cursor={cursor} next={list.data.next_cursor} />
        </>
      )}
      {writer && <NewOrganization appId={appId} tenantId={tenantId} />}
      <Roles appId={appId} roles={roles} writer={writer} />
    </>
  );
}
