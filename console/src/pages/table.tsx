// /console/t/:tenant/apps/:app/tables/:table: a table's columns (a new column: owners, admins) and its rows
// grid (POST .../rows/query with the filters, `?where=`, and the keyset cursor, `?cursor=`, in the address;
// add, edit and delete a row: owners, admins). A viewer sees the columns, the grid and the filters.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { PageProps } from '../routes.js';
import { Link, navigate } from '../router.js';
import { canWrite } from '../store.js';
import { useLoad } from '../ui/load.js';
import { Pending } from '../ui/pending.js';
import { Columns, NewColumn } from './tables/columns.js';
import { Filters } from './tables/filters.js';
import { conditionsOf, tableHref, tablesHref, type Table } from './tables/model.js';
import { gridHref, Rows } from './tables/rows.js';

export function TablePage({ params, query, tenant }: PageProps) {
  const appId = params.app!;
  const tenantId = params.tenant!;
  const where = query.get('where');
  const cursor = query.get('cursor') ?? '';
  const conditions = conditionsOf(where);
  const [version, setVersion] = useState(0);
  const loaded = useLoad(() => api<Table>('GET', `/v1/tables/${params.table}`, { appId }), [appId, params.table]);
  const [changed, setChanged] = useState<Table | undefined>(undefined);
  const table = changed?.table_id === params.table ? changed : loaded.data;
  const writer = canWrite(tenant?.role);
  if (loaded.error || !table) return <Pending load={loaded} text="Loading the table…" />;
  const base = tableHref(tenantId, appId, table.table_id);
  return (
    <>
      <p>
        <Link href={tablesHref(tenantId, appId)}>Tables</Link> · <strong>{table.name}</strong> · id <code>{table.table_id}</code>
      </p>
      <section aria-labelledby="columns">
        <h2 id="columns">Columns</h2>
        <Columns table={table} />
      </section>
      {writer && (
        <NewColumn
          appId={appId}
          table={table}
          onAdded={(t) => {
            setChanged(t);
            setVersion((n) => n + 1);
          }}
        />
      )}
      <Filters key={where ?? ''} columns={table.columns} applied={conditions} onApply={(list) => navigate(gridHref(base, list))} />
      <section aria-labelledby="rows">
        <h2 id="rows">Rows</h2>
        <Rows appId={appId} table={table} base={base} conditions={conditions} cursor={cursor} writer={writer} version={version} />
      </section>
    </>
  );
}
