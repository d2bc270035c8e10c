// Your account → Sessions: where the console user is signed in (GET /v1/me/sessions, newest first, this one
// marked) and "Sign out other sessions" (POST /v1/me/sessions/revoke_others), through @gatehouse/client.
import { useState } from 'preact/hooks';
import { gatehouse } from '../../session.js';
import { useAction, useLoad } from '../../ui/load.js';
import { LoadStatus } from '../../ui/pending.js';
import { Notice, Problem } from '../../ui/problem.js';

const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');

/** `changes` counts the page's writes that may have signed other sessions out: each reads the list again. */
export function SessionsSection({ changes }: { changes: number }) {
  const list = useLoad(() => gatehouse().auth.listSessions(), [changes]);
  const revoke = useAction();
  const [revoked, setRevoked] = useState<number | undefined>(undefined);
  const signOutOthers = () =>
    revoke.run(async () => {
      setRevoked(await gatehouse().auth.revokeOtherSessions());
      list.reload();
    });
  const others = (list.data ?? []).filter((s) => !s.current).length;
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <LoadStatus load={list} text="Loading your sessions…" />
      {list.data && (
        <div class="table-wrap">
          <table>
            <caption>{`Where you are signed in: ${list.data.length}`}</caption>
            <thead>
              <tr>
                <th scope="col">Signed in (UTC)</th>
                <th scope="col">Last used (UTC)</th>
                <th scope="col">Browser</th>
                <th scope="col">IP address</th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((s) => (
                <tr key={s.session_id}>
                  <td>
                    <time dateTime={s.created_at}>{when(s.created_at)}</time>
                    {s.current && <strong> (this session)</strong>}
                  </td>
                  <td>
                    <time dateTime={s.last_used_at}>{when(s.last_used_at)}</time>
                  </td>
                  <td>{s.user_agent ?? 'unknown'}</td>
                  <td>{s.ip ?? 'unknown'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && others > 0 && (
        <p class="actions">
          <button type="button" class="secondary" disabled={revoke.busy} onClick={signOutOthers}>
            Sign out other sessions
          </button>
        </p>
      )}
      <Notice text={revoked === undefined ? undefined : `Signed out ${revoked} other ${revoked === 1 ? 'session' : 'sessions'}.`} />
      <Problem error={revoke.error} />
    </section>
  );
}
