// A table's rows grid: a page of POST /v1/tables/{id}/rows/query (the filters and the cursor from the
// address), a column per table column. Owners and admins edit a row (PATCH) and delete one after confirming.
import type { Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { AskFirst } from '../../ui/confirm.js';
import { useAction, useLoad } from '../../ui/load.js';
import { Pager } from '../../ui/pager.js';
import { LoadStatus } from '../../ui/pending.js';
import { Notice } from '../../ui/problem.js';
import { shown, toFilter, type Condition, type Row, type Table } from './model.js';
import { RowForm } from './row-form.js';

export const PAGE = 25;

/** The address of the grid with these conditions and cursor. */
export function gridHref(base: string, conditions: Condition[], cursor?: string): string {
  const query = new URLSearchParams();
  if (conditions.length) query.set('where', JSON.stringify(conditions));
  if (cursor) query.set('cursor', cursor);
  const text = query.toString();
  return text ? `${base}?${text}` : base;
}

function DeleteRow({ appId, table, row, onDone, onCancel }: { appId: string; table: Table; row: Row; onDone: () => void; onCancel: () => void }) {
  const remove = useAction();
  const destroy = () => remove.run(async () => (await api('DELETE', `/v1/tables/${table.table_id}/rows/${row.row_id}`, { appId }), onDone()));
  return <AskFirst id="delete-row" title={`Delete row ${row.row_id}?`} text="This cannot be undone." button="Delete the row" action={remove} onConfirm={destroy} onCancel={onCancel} />;
}

export function Rows({ appId, table, base, conditions, cursor, writer, version }: { appId: string; table: Table; base: string; conditions: Condition[]; cursor: string; writer: boolean; version: number }) {
  const [editing, setEditing] = useState<Row | undefined>(undefined);
  const [deleting, setDeleting] = useState<Row | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const body = { filter: conditions.map((c) => toFilter(c, table.columns)), limit: PAGE, ...(cursor ? { cursor } : {}) };
  const page = useLoad(() => api<Ok<'queryRows'>>('POST', `/v1/tables/${table.table_id}/rows/query`, { appId, body }), [appId, table.table_id, JSON.stringify(body), version]);
  const short = (row: Row) => row.row_id.slice(0, 8);
  const done = (text: string) => {
    setEditing(undefined);
    setDeleting(undefined);
    setNotice(text);
    page.reload();
  };
  return (
    <>
      <LoadStatus load={page} text="Loading rows…" />
      {page.data && (
        <>
          <div class="table-wrap">
            <table>
              <caption>{`Rows${conditions.length ? ' matching the filters' : ''}: ${page.data.rows.length} on this page${cursor ? ' (a later page)' : ''}`}</caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  {table.columns.map((c) => (
                    <th scope="col" key={c.column_id}>
                      {c.name}
                    </th>
                  ))}
                  <th scope="col">Created</th>
                  {writer && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {page.data.rows.map((row) => (
                  <tr key={row.row_id}>
                    <td>
                      <code>{short(row)}</code>
                    </td>
                    {table.columns.map((c) => (
                      <td key={c.column_id}>{shown(row.data[c.name])}</td>
                    ))}
                    <td>
                      <time dateTime={row.created_at}>{row.created_at.slice(0, 19).replace('T', ' ')}</time>
                    </td>
                    {writer && (
                      <td class="row-actions">
                        <button type="button" class="secondary" aria-label={`Edit row ${short(row)}`} onClick={() => (setDeleting(undefined), setEditing(row))}>
                          Edit
                        </button>
                        <button type="button" class="secondary" aria-label={`Delete row ${short(row)}`} onClick={() => (setEditing(undefined), setDeleting(row))}>
                          Delete
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {page.data.rows.length === 0 && <p>{conditions.length ? 'No row matches the filters.' : 'No rows on this page.'}</p>}
          <Pager cursor={cursor} next={page.data.next_cursor} href={(c) => gridHref(base, conditions, c)} />
        </>
      )}
      <Notice text={notice} />
      {writer && editing && <RowForm key={editing.row_id} appId={appId} table={table} row={editing} onDone={() => done('Saved the row.')} onCancel={() => setEditing(undefined)} />}
      {writer && deleting && <DeleteRow appId={appId} table={table} row={deleting} onDone={() => done('Deleted the row.')} onCancel={() => setDeleting(undefined)} />}
      {writer && <RowForm key={`new-${table.columns.length}`} appId={appId} table={table} onDone={() => done('Added the row.')} />}
    </>
  );
}
