// The query filters of POST /v1/tables/{id}/rows/query: conditions (column, operator, value), all of which
// must hold, up to the API's 50. Applying them puts them in the address (`?where=`), which drops the cursor.
import { useState } from 'preact/hooks';
import { Choice, Field, Form } from '../../ui/fields.js';
import { MAX_CONDITIONS, OPS, type Column, type Condition } from './model.js';

export function Filters({ columns, applied, onApply }: { columns: Column[]; applied: Condition[]; onApply: (conditions: Condition[]) => void }) {
  const [conditions, setConditions] = useState<Condition[]>(applied);
  const fields: [string, string][] = [...columns.map((c): [string, string] => [c.name, `${c.name} (${c.type})`]), ['created_at', 'created_at (date)'], ['updated_at', 'updated_at (date)']];
  const set = (i: number, patch: Partial<Condition>) => setConditions(conditions.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  const more = () => setConditions([...conditions, { field: fields[0]![0], op: 'eq', value: '' }]);
  return (
    <section aria-labelledby="filters">
      <h2 id="filters">Filter rows</h2>
      <Form onSubmit={() => onApply(conditions)} label="Filter rows">
        {conditions.length === 0 && <p>No condition: every row, oldest first.</p>}
        {conditions.map((c, i) => (
          <fieldset class="condition" key={i}>
            <legend>{`Condition ${i + 1}`}</legend>
            <Choice label={`Condition ${i + 1} column`} value={c.field} onValue={(v) => set(i, { field: v })} options={fields} />
            <Choice label={`Condition ${i + 1} operator`} value={c.op} onValue={(v) => set(i, { op: v })} options={OPS} />
            <Field label={`Condition ${i + 1} value`} value={c.value} onValue={(v) => set(i, { value: v })} autoComplete="off" spellcheck={false} hint={c.op === 'in' ? 'Values separated by commas.' : c.op === 'is_null' ? 'true (empty) or false (has a value).' : undefined} />
            <button type="button" class="secondary" onClick={() => setConditions(conditions.filter((_, j) => j !== i))}>
              {`Remove condition ${i + 1}`}
            </button>
          </fieldset>
        ))}
        <p class="actions">
          {conditions.length < MAX_CONDITIONS && (
            <button type="button" class="secondary" onClick={more}>
              Add a condition
            </button>
          )}
          <button type="submit">Apply filters</button>
          {applied.length > 0 && (
            <button type="button" class="secondary" onClick={() => (setConditions([]), onApply([]))}>
              Clear filters
            </button>
          )}
        </p>
      </Form>
    </section>
  );
}
