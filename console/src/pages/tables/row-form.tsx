// A row's fields, one per column, typed by the column (a number, true/false, a date, JSON): a new row
// (POST .../rows; empty fields left out, so defaults fill them) or an edit (PATCH .../rows/{id}: only the
// changed fields; an emptied field is null, which clears a column that is not required).
import type { Ok } from '@gatehouse/api-types';
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Choice, Field, Form, TextArea } from '../../ui/fields.js';
import { useAction } from '../../ui/load.js';
import { Problem } from '../../ui/problem.js';
import { fromText, toText, type Column, type Row, type Table } from './model.js';

const HINTS: Record<string, string> = {
  int: 'A whole number.',
  float: 'A number, e.g. 2.5.',
  date: 'An ISO 8601 date or date-time, e.g. 2026-12-02.',
  json: 'Any JSON value, e.g. {"a": 1} or "text".',
  text: 'At most 2,048 bytes.',
};

function ColumnField({ column, value, onValue, prefix }: { column: Column; value: string; onValue: (v: string) => void; prefix: string }) {
  const label = `${prefix}${column.name}${column.required ? ' (required)' : ''}`;
  if (column.type === 'bool')
    return (
      <Choice
        label={label}
        value={value}
        onValue={onValue}
        options={[
          ['', 'no value'],
          ['true', 'true'],
          ['false', 'false'],
        ]}
      />
    );
  if (column.type === 'json') return <TextArea label={label} value={value} onValue={onValue} hint={HINTS.json} rows={2} />;
  return <Field label={label} value={value} onValue={onValue} hint={HINTS[column.type]} autoComplete="off" spellcheck={false} inputMode={column.type === 'int' ? 'numeric' : undefined} />;
}

/** The form of a new row (`row` undefined) or of `row`'s edit; `onDone` after the write. */
export function RowForm({ appId, table, row, onDone, onCancel }: { appId: string; table: Table; row?: Row; onDone: (row: Row) => void; onCancel?: () => void }) {
  const initial = () => Object.fromEntries(table.columns.map((c) => [c.name, row ? toText(row.data[c.name], c.type) : '']));
  const [values, setValues] = useState<Record<string, string>>(initial);
  const save = useAction();
  const prefix = row ? 'Edit ' : 'New ';
  const submit = () =>
    save.run(async () => {
      const data: Record<string, unknown> = {};
      for (const c of table.columns) {
        const text = values[c.name] ?? '';
        if (row) {
          if (text !== toText(row.data[c.name], c.type)) data[c.name] = fromText(text, c.type) ?? null;
        } else if (text !== '') data[c.name] = fromText(text, c.type);
      }
      const saved = row
        ? await api<Ok<'updateRow'>>('PATCH', `/v1/tables/${table.table_id}/rows/${row.row_id}`, { appId, body: { data } })
        : await api<Ok<'insertRow'>>('POST', `/v1/tables/${table.table_id}/rows`, { appId, body: { data } });
      if (!row) setValues(initial());
      onDone(saved);
    });
  const title = row ? `Edit row ${row.row_id}` : 'New row';
  return (
    <section aria-labelledby={row ? 'edit-row' : 'new-row'}>
      <h2 id={row ? 'edit-row' : 'new-row'}>{title}</h2>
      {table.columns.length === 0 && <p>Add a column first: a row holds a value per column.</p>}
      <Form onSubmit={submit} label={title}>
        {table.columns.map((c) => (
          <ColumnField key={c.column_id} column={c} prefix={prefix} value={values[c.name] ?? ''} onValue={(v) => setValues({ ...values, [c.name]: v })} />
        ))}
        <button type="submit" disabled={save.busy}>
          {row ? 'Save row' : 'Add row'}
        </button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        )}
      </Form>
      <Problem error={save.error} />
    </section>
  );
}
