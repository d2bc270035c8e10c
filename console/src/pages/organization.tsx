// /console/t/:tenant/apps/:app/organizations/:org: one organisation: rename (name, slug), its members
// (orgs/members.tsx), its invitations (orgs/invitations.tsx), delete (its name typed). Owners and admins of the
// tenant write through the Secret routes with X-App-Id; a viewer reads.
import type { Body, Ok } from '@gatehouse/api-types';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { Link, navigate } from '../router.js';
import { canWrite } from '../store.js';
import { TypedConfirm } from '../ui/confirm.js';
import { Field, Form } from '../ui/fields.js';
import { useAction, useLoad } from '../ui/load.js';
import { Pending } from '../ui/pending.js';
import { Notice, Problem } from '../ui/problem.js';
import { Invitations } from './orgs/invitations.js';
import { Members } from './orgs/members.js';
import { orgHref, orgsHref, roleOptions, type Organization } from './orgs/types.js';

function Rename({ appId, org, onSaved }: { appId: string; org: Organization; onSaved: () => void }) {
  const [name, setName] = useState(org.name);
  const [slug, setSlug] = useState(org.slug);
  const [done, setDone] = useState<string | undefined>(undefined);
  const save = useAction();
  useEffect(() => (setName(org.name), setSlug(org.slug)), [org.name, org.slug]);
  const submit = () =>
    save.run(async () => {
      await api('PATCH', `/v1/organizations/${org.organization_id}`, { appId, body: { name: name.trim(), slug: slug.trim() } satisfies Body<'updateOrganization'> });
      setDone('Saved.');
      onSaved();
    });
  return (
    <section aria-labelledby="org-rename">
      <h2 id="org-rename">Name and slug</h2>
      <Form onSubmit={submit} label="Rename the organisation">
        <Field label="Name" value={name} onValue={setName} required maxLength={100} autoComplete="off" />
        <Field label="Slug" value={slug} onValue={setSlug} required hint="Lower case letters, digits and -, unique in the app." autoComplete="off" spellcheck={false} />
        <button type="submit" disabled={save.busy}>
          Save
        </button>
      </Form>
      <Notice text={done} />
      <Problem error={save.error} />
    </section>
  );
}

export function OrganizationPage({ params, query, tenant }: PageProps) {
  const appId = params.app!;
  const tenantId = params.tenant!;
  const orgId = params.org!;
  const writer = canWrite(tenant?.role);
  const org = useLoad(() => api<Organization>('GET', `/v1/organizations/${orgId}`, { appId }), [appId, orgId]);
  const custom = useLoad(() => api<Ok<'listOrganizationRoles'>>('GET', '/v1/organization_roles', { appId }), [appId]);
  const remove = useAction();
  if (org.error || !org.data) return <Pending load={org} text="Loading the organisation…" />;
  const o = org.data;
  const roles = roleOptions(custom.data?.roles);
  const destroy = () => remove.run(async () => (await api('DELETE', `/v1/organizations/${orgId}`, { appId }), navigate(orgsHref(tenantId, appId))));
  return (
    <>
      <p>
        <Link href={orgsHref(tenantId, appId)}>All organisations</Link> · <strong>{o.name}</strong> (<code>{o.slug}</code>) · {o.members_count} {o.members_count === 1 ? 'member' : 'members'} · id <code>{o.organization_id}</code>
      </p>
      {writer && <Rename appId={appId} org={o} onSaved={org.reload} />}
      <Members appId={appId} orgId={orgId} base={orgHref(tenantId, appId, orgId)} cursor={query.get('cursor') ?? ''} writer={writer} roles={roles} onChanged={org.reload} />
      <Invitations appId={appId} orgId={orgId} writer={writer} roles={roles} />
      {writer && <TypedConfirm what="the organisation" expected={o.name} action={remove} onConfirm={destroy} />}
    </>
  );
}
