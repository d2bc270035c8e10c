// /console/t/:tenant/apps/:app/users/:user: one user of an app (docs/console.md, "A user"): their record
// and metadata, sessions, second factors, organisations and events; an owner or admin bans and unbans,
// revokes sessions, issues a sign-in token, exports and deletes. A viewer reads only.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { Link } from '../router.js';
import { canWrite } from '../store.js';
import { useLoad } from '../ui/load.js';
import { Problem } from '../ui/problem.js';
import { DeleteUser, Export, SignInTokenForm } from './users/actions.js';
import { UserEvents } from './users/events.js';
import { type User, userHref, usersHref } from './users/paths.js';
import { Metadata, Profile } from './users/profile.js';
import { Factors, Organizations } from './users/related.js';
import { Sessions } from './users/sessions.js';

export function UserPage({ params, query, tenant }: PageProps) {
  const appId = params.app!;
  const tenantId = params.tenant!;
  const userId = params.user!;
  const cursor = query.get('cursor') ?? '';
  const loaded = useLoad(() => api<User>('GET', `/v1/users/${userId}`, { appId }), [appId, userId]);
  const [changed, setChanged] = useState<User | undefined>(undefined);
  // Bumped after every write: the sessions and events read again (a ban ends sessions, each write is an event).
  const [version, setVersion] = useState(0);
  const bump = () => setVersion((n) => n + 1);
  const user = changed?.id === userId ? changed : loaded.data;
  const writer = canWrite(tenant?.role);
  const onChanged = (next: User) => (setChanged(next), bump());
  return (
    <>
      <p>
        <Link href={usersHref(tenantId, appId)}>All users of the app</Link>
      </p>
      <Problem error={loaded.error} />
      {loaded.loading && !user && <p class="loading">Loading the user…</p>}
      {user && (
        <>
          <Profile appId={appId} user={user} writer={writer} onChanged={onChanged} />
          <Sessions appId={appId} userId={userId} writer={writer} version={version} onChanged={bump} />
          <Factors appId={appId} userId={userId} />
          <Organizations appId={appId} userId={userId} />
          <UserEvents appId={appId} userId={userId} href={userHref(tenantId, appId, userId)} cursor={cursor} version={version} />
          <Metadata appId={appId} user={user} writer={writer} onChanged={onChanged} />
          {writer && (
            <>
              <SignInTokenForm appId={appId} user={user} onIssued={bump} />
              <Export appId={appId} user={user} onExported={bump} />
              <DeleteUser appId={appId} user={user} backTo={usersHref(tenantId, appId)} />
            </>
          )}
        </>
      )}
    </>
  );
}
