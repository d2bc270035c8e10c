// A user's live sessions (GET /v1/users/{id}/sessions): when, where from, how they signed in. An owner or
// admin revokes one (POST /v1/sessions/revoke) or signs the user out everywhere (POST .../sessions/revoke).
import type { Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useAction, useLoad } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';
import { When } from '../../ui/time.js';

const short = (id: string) => id.slice(0, 8);

export function Sessions({ appId, userId, writer, version, onChanged }: { appId: string; userId: string; writer: boolean; version: number; onChanged: () => void }) {
  const list = useLoad(() => api<Ok<'listUserSessions'>>('GET', `/v1/users/${userId}/sessions`, { appId }), [appId, userId, version]);
  const action = useAction();
  const [done, setDone] = useState<string | undefined>(undefined);
  const after = (text: string) => (setDone(text), list.reload(), onChanged());
  const revoke = (id: string) =>
    action.run(async () => {
      await api('POST', '/v1/sessions/revoke', { appId, query: { session_id: id } });
      after(`Revoked session ${short(id)}.`);
    });
  const revokeAll = () =>
    action.run(async () => {
      const { revoked } = await api<Ok<'revokeUserSessions'>>('POST', `/v1/users/${userId}/sessions/revoke`, { appId });
      after(`Signed out everywhere: ${revoked} ${revoked === 1 ? 'session' : 'sessions'} ended.`);
    });
  const sessions = list.data?.sessions;
  return (
    <section aria-labelledby="user-sessions">
      <h2 id="user-sessions">Sessions</h2>
      <Problem error={list.error} />
      {sessions && sessions.length === 0 && <p>No live session: the user is signed in nowhere.</p>}
      {sessions && sessions.length > 0 && (
        <div class="table-wrap">
          <table class="unbroken">
            <caption>{`Live sessions: ${sessions.length}`}</caption>
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Signed in</th>
                <th scope="col">Last refresh</th>
                <th scope="col">Expires</th>
                <th scope="col">IP</th>
                <th scope="col">Browser</th>
                <th scope="col">Methods</th>
                {writer && <th scope="col">Action</th>}
              </tr>
            </thead>
            <tbody>
              {sessions.map((s) => (
                <tr key={s.session_id}>
                  <td>
                    <code>{short(s.session_id)}</code>
                  </td>
                  <td>
                    <When at={s.created_at} />
                  </td>
                  <td>
                    <When at={s.last_used_at} />
                  </td>
                  <td>
                    <When at={s.expires_at} />
                  </td>
                  <td>{s.ip ?? 'unknown'}</td>
                  <td>{s.user_agent ?? 'unknown'}</td>
                  <td>{`${s.amr.join(', ') || 'unknown'} (${s.aal})`}</td>
                  {writer && (
                    <td>
                      <button type="button" class="secondary" disabled={action.busy} onClick={() => revoke(s.session_id)}>
                        {`Revoke session ${short(s.session_id)}`}
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {writer && sessions && sessions.length > 0 && (
        <p class="actions">
          <button type="button" class="destructive" disabled={action.busy} onClick={revokeAll}>
            Sign out everywhere
          </button>
        </p>
      )}
      <Notice text={done} />
      <Problem error={action.error} />
    </section>
  );
}
