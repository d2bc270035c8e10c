import { useEffect, useState } from 'preact/hooks';
import { Choice, Form } from './fields.js';
import type { Action } from './load.js';
import { Notice, Problem } from './problem.js';

/**
 * A member's role in a members table (a tenant's, an organisation's): for a writer a role choice with "Save
 * role" and the remove button, else the role as text; then what the last write did or the server's refusal.
 * R: the roles of that kind of member (a tenant's three, or an organisation's any string).
 */
export function MemberRoleCell<R extends string>(props: { who: string; current: R; options: [R, string][]; writer: boolean; action: Action; done: string | undefined; removeLabel: string; onSave: (role: R) => void; onRemove: () => void }) {
  const { who, current, options, writer, action, done, removeLabel, onSave, onRemove } = props;
  const [role, setRole] = useState<R>(current);
  useEffect(() => setRole(current), [current]);
  return (
    <td>
      {writer ? (
        <Form onSubmit={() => onSave(role)} label={`Role of ${who}`}>
          <Choice label={`Role of ${who}`} value={role} onValue={setRole} options={options} />
          <div class="actions">
            <button type="submit" disabled={action.busy || role === current}>
              Save role
            </button>
            <button type="button" class="destructive" onClick={onRemove} disabled={action.busy}>
              {removeLabel}
            </button>
          </div>
        </Form>
      ) : (
        current
      )}
      <Notice text={done} />
      <Problem error={action.error} />
    </td>
  );
}
