// /console/t/:tenant/apps/:app/tables: the app's custom tables (GET /v1/tables with X-App-Id), a new table
// with its columns (POST /v1/tables) and a table deleted after its name is typed (DELETE /v1/tables/{id}).
// Owners and admins write; a viewer sees the list.
import type { Body, Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { Link } from '../router.js';
import { canWrite } from '../store.js';
import { TypedConfirm } from '../ui/confirm.js';
import { Check, Choice, Field, Form } from '../ui/fields.js';
import { useAction, useLoad } from '../ui/load.js';
import { LoadStatus } from '../ui/pending.js';
import { Notice, Problem } from '../ui/problem.js';
import { tableHref, TYPES, type ColumnType, type Table } from './tables/model.js';

interface NewColumn {
  name: string;
  type: ColumnType;
  required: boolean;
}

const blank = (): NewColumn => ({ name: '', type: 'text', required: false });

function NewTable({ appId, onCreated }: { appId: string; onCreated: (table: Table) => void }) {
  const [name, setName] = useState('');
  const [columns, setColumns] = useState<NewColumn[]>([blank()]);
  const create = useAction();
  const set = (i: number, patch: Partial<NewColumn>) => setColumns(columns.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  const submit = () =>
    create.run(async () => {
      const given = columns.filter((c) => c.name.trim() !== '').map((c) => ({ name: c.name.trim(), type: c.type, required: c.required }));
      const table = await api<Ok<'createTable'>>('POST', '/v1/tables', { appId, body: { name: name.trim(), columns: given } satisfies Body<'createTable'> });
      setName('');
      setColumns([blank()]);
      onCreated(table);
    });
  return (
    <section aria-labelledby="new-table">
      <h2 id="new-table">New table</h2>
      <Form onSubmit={submit} label="New table">
        <Field label="Table name" value={name} onValue={setName} required autoComplete="off" spellcheck={false} hint="Lower-case letters, digits and _, starting with a letter (at most 63)." />
        <fieldset>
          <legend>Columns (more can be added later)</legend>
          {columns.map((column, i) => (
            <div class="column-row" key={i}>
              <Field label={`Column ${i + 1} name`} value={column.name} onValue={(v) => set(i, { name: v })} autoComplete="off" spellcheck={false} />
              <Choice label={`Column ${i + 1} type`} value={column.type} onValue={(v) => set(i, { type: v as ColumnType })} options={TYPES} />
              <Check label={`Column ${i + 1} required`} checked={column.required} onChecked={(on) => set(i, { required: on })} />
            </div>
          ))}
          <p class="actions">
            {columns.length < 100 && (
              <button type="button" class="secondary" onClick={() => setColumns([...columns, blank()])}>
                Add another column
              </button>
            )}
            {columns.length > 1 && (
              <button type="button" class="secondary" onClick={() => setColumns(columns.slice(0, -1))}>
                Remove the last column
              </button>
            )}
          </p>
        </fieldset>
        <button type="submit" disabled={create.busy}>
          Create table
        </button>
      </Form>
      <Problem error={create.error} />
    </section>
  );
}

function DeleteTable({ appId, tables, onDeleted }: { appId: string; tables: Table[]; onDeleted: (name: string) => void }) {
  const [chosen, setChosen] = useState(tables[0]?.table_id ?? '');
  const remove = useAction();
  const table = tables.find((t) => t.table_id === chosen) ?? tables[0];
  if (!table) return null;
  const destroy = () =>
    remove.run(async () => {
      await api('DELETE', `/v1/tables/${table.table_id}`, { appId });
      onDeleted(table.name);
    });
  return (
    <section aria-labelledby="delete-table">
      <h2 id="delete-table">Delete a table</h2>
      <Choice label="Table to delete" value={table.table_id} onValue={setChosen} options={tables.map((t) => [t.table_id, t.name])} hint="Its columns and every row go with it." />
      <TypedConfirm key={table.table_id} what={`the table ${table.name}`} expected={table.name} action={remove} onConfirm={destroy} />
    </section>
  );
}

export function TablesPage({ params, tenant }: PageProps) {
  const appId = params.app!;
  const tenantId = params.tenant!;
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const list = useLoad(() => api<Ok<'listTables'>>('GET', '/v1/tables', { appId }), [appId]);
  const writer = canWrite(tenant?.role);
  return (
    <>
      <LoadStatus load={list} text="Loading tables…" />
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <caption>{`Tables: ${list.data.tables.length}`}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Columns</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.tables.map((t) => (
                  <tr key={t.table_id}>
                    <td>
                      <Link href={tableHref(tenantId, appId, t.table_id)}>{t.name}</Link>
                    </td>
                    <td>{t.columns.map((c) => `${c.name} (${c.type}${c.required ? ', required' : ''})`).join(', ') || 'none'}</td>
                    <td>
                      <time dateTime={t.created_at}>{t.created_at.slice(0, 10)}</time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.data.tables.length === 0 && <p>This app has no tables yet.</p>}
        </>
      )}
      {writer && (
        <>
          <Notice text={notice} />
          <NewTable
            appId={appId}
            onCreated={(table) => {
              setNotice(`Created the table ${table.name}.`);
              list.reload();
            }}
          />
          {list.data && list.data.tables.length > 0 && (
            <DeleteTable
              key={list.data.tables.map((t) => t.table_id).join()}
              appId={appId}
              tables={list.data.tables}
              onDeleted={(name) => {
                setNotice(`Deleted the table ${name}.`);
                list.reload();
              }}
            />
          )}
        </>
      )}
    </>
  );
}
