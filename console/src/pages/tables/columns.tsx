// A table's columns (as GET /v1/tables/{id} answers them) and a new column (POST .../columns: name, type,
// required, default; owners and admins). A required column without a default on a table with rows is a 409.
import type { Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Check, Choice, Field, Form } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Notice, Problem } from '../../ui/problem.js';
import { fromText, shown, TYPES, type ColumnType, type Table } from './model.js';

export function Columns({ table }: { table: Table }) {
  return (
    <div class="table-wrap">
      <table>
        <caption>{`Columns of ${table.name}: ${table.columns.length}`}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Required</th>
            <th scope="col">Default</th>
          </tr>
        </thead>
        <tbody>
          {table.columns.map((c) => (
            <tr key={c.column_id}>
              <td>{c.name}</td>
              <td>{c.type}</td>
              <td>{c.required ? 'yes' : 'no'}</td>
              <td>{shown(c.default_value) || 'none'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function NewColumn({ appId, table, onAdded }: { appId: string; table: Table; onAdded: (table: Table) => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<ColumnType>('text');
  const [required, setRequired] = useState(false);
  const [fallback, setFallback] = useState('');
  const [added, setAdded] = useState<string | undefined>(undefined);
  const add = useAction();
  const submit = () =>
    add.run(async () => {
      const value = fromText(fallback, type);
      const body = { name: name.trim(), type, required, ...(value === undefined ? {} : { default_value: value }) };
      const changed = await api<Ok<'addColumn'>>('POST', `/v1/tables/${table.table_id}/columns`, { appId, body });
      setAdded(`Added the column ${body.name}.`);
      setName('');
      setFallback('');
      setRequired(false);
      onAdded(changed);
    });
  return (
    <section aria-labelledby="new-column">
      <h2 id="new-column">New column</h2>
      <Form onSubmit={submit} label="New column">
        <Field label="Column name" value={name} onValue={setName} required autoComplete="off" spellcheck={false} hint="Lower-case letters, digits and _, starting with a letter." />
        <Choice label="Column type" value={type} onValue={(v) => setType(v as ColumnType)} options={TYPES} />
        <Check label="Required" checked={required} onChecked={setRequired} hint="A required column on a table that has rows needs a default." />
        <Field label="Default value (optional)" value={fallback} onValue={setFallback} autoComplete="off" spellcheck={false} hint="Filled into rows written without this column. JSON for a json column." />
        <button type="submit" disabled={add.busy}>
          Add column
        </button>
      </Form>
      <Problem error={add.error} />
      <Notice text={added} />
    </section>
  );
}
