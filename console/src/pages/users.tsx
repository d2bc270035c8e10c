// /console/t/:tenant/apps/:app/users: the app's users, newest first, a page at a time by keyset
// (GET /v1/users with X-App-Id: `next_cursor` becomes `?cursor=` in the address, so a page can be linked),
// an exact email search (`?email=`), and a new user (POST /v1/users; owner, admin). A viewer sees the list.
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
import { Notice, Problem } from '../ui/problem.js';
import { type User, userHref, usersHref } from './users/paths.js';

const PAGE = 25;

function NewUser({ appId, onCreated }: { appId: string; onCreated: (user: User) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const create = useAction();
  const submit = () =>
    create.run(async () => {
      const user = await api<Ok<'createUser'>>('POST', '/v1/users', { appId, body: { email: email.trim(), ...(password ? { password } : {}) } satisfies Body<'createUser'> });
      setEmail('');
      setPassword('');
      onCreated(user);
    });
  return (
    <section aria-labelledby="new-user">
      <h2 id="new-user">New user</h2>
      <Form onSubmit={submit} label="New user">
        <Field label="New user's email" type="email" required value={email} onValue={setEmail} autoComplete="off" />
        <Field label="Password (optional)" type="password" value={password} onValue={setPassword} autoComplete="new-password" hint="8 to 256 characters. Leave it empty for a user who signs in by link, code, SSO or a sign-in token. The email starts unverified." />
        <button type="submit" disabled={create.busy}>
          Create user
        </button>
      </Form>
      <Problem error={create.error} />
    </section>
  );
}

export function UsersPage({ params, query, tenant }: PageProps) {
  const appId = params.app!;
  const tenantId = params.tenant!;
  const email = query.get('email') ?? '';
  const cursor = query.get('cursor') ?? '';
  const [search, setSearch] = useState(email);
  const [created, setCreated] = useState<User | undefined>(undefined);
  const list = useLoad(() => api<Ok<'listUsers'>>('GET', '/v1/users', { appId, query: { limit: PAGE, email: email || undefined, cursor: cursor || undefined } }), [appId, email, cursor]);
  const base = usersHref(tenantId, appId);
  const find = () => navigate(search.trim() ? `${base}?email=${encodeURIComponent(search.trim())}` : base);
  return (
    <>
      <section aria-labelledby="find-user">
        <h2 id="find-user">Find a user</h2>
        <Form onSubmit={find} label="Find a user by email">
          <Field label="Search by email" type="search" value={search} onValue={setSearch} hint="The exact address, in any letter case." autoComplete="off" />
          <button type="submit">Search</button>
          {email && (
            <button type="button" class="secondary" onClick={() => (setSearch(''), navigate(base))}>
              Show all users
            </button>
          )}
        </Form>
      </section>
      <LoadStatus load={list} text="Loading users…" reloading />
      {list.data && !list.loading && (
        <>
          <div class="table-wrap">
            <table>
              <caption>{email ? `Users with the email ${email}: ${list.data.total}` : `Users: ${list.data.total}${cursor ? ' (a later page)' : ''}`}</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Verified</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.users.map((u) => (
                  <tr key={u.id}>
                    <td>
                      <Link href={userHref(tenantId, appId, u.id)}>{u.email ?? (u.is_bot ? `bot ${u.id}` : u.id)}</Link>
                    </td>
                    <td>{u.email_verified ? 'yes' : 'no'}</td>
                    <td>{u.banned ? 'banned' : 'active'}</td>
                    <td>
                      <time dateTime={u.created_at}>{u.created_at.slice(0, 10)}</time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.data.users.length === 0 && <p>{email ? 'No user has this email.' : 'No users on this page.'}</p>}
          <Pager base={base} cursor={cursor} next={list.data.next_cursor} />
        </>
      )}
      {canWrite(tenant?.role) && (
        <>
          <Notice text={created ? `Created ${created.email}.` : undefined} />
          <NewUser
            appId={appId}
            onCreated={(user) => {
              setCreated(user);
              list.reload();
            }}
          />
        </>
      )}
    </>
  );
}
