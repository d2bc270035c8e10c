import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { tableStorage } from '../../services/tables/rows.js';
import { addColumn, createTable, deleteColumn, deleteTable, getTable, listTables, updateColumn } from '../../services/tables/schema.js';
import { NAME_PATTERN } from '../../services/tables/values.js';
import type { Guards } from '../plugins/guards.js';
import { deleted, errors, ListOf, StatusBody, Timestamp, Uuid } from '../schemas.js';
import { NoOtherField } from './tables-schemas.js';
import type { Http } from '../types.js';
import { routesOf } from '../route-security.js';
import { tableRowRoutes } from './tables-rows.js';

// docs/tables.md: tables and columns. Create, list and read: Secret or
// Publishable + Session; deleting a table and every column change: Secret.

export const Name = Type.String({ pattern: NAME_PATTERN, description: 'lower-case letters, digits and _, starting with a letter, at most 63' });
const ColumnType = Type.Union([Type.Literal('text'), Type.Literal('int'), Type.Literal('bool'), Type.Literal('float'), Type.Literal('date'), Type.Literal('json')]);
const Position = Type.Integer({ minimum: 0, maximum: 1_000_000 });

const ColumnInput = Type.Object(
  {
    name: Name,
    type: ColumnType,
    required: Type.Optional(Type.Boolean({ default: false })),
    default_value: Type.Optional(Type.Unknown({ description: 'a value of the column type, or null for none' })),
    position: Type.Optional(Position),
  },
  { title: 'ColumnInput', additionalProperties: NoOtherField },
);

const ColumnPatch = Type.Object(
  {
    name: Type.Optional(Name),
    type: Type.Optional(ColumnType),
    required: Type.Optional(Type.Boolean()),
    default_value: Type.Optional(Type.Unknown()),
    position: Type.Optional(Position),
  },
  { additionalProperties: NoOtherField, minProperties: 1 },
);

export const ColumnBody = Type.Object({
  column_id: Uuid,
  name: Type.String(),
  type: ColumnType,
  required: Type.Boolean(),
  default_value: Type.Unknown(),
  position: Type.Integer(),
}, { title: 'Column' });

export const TableBody = Type.Object({ table_id: Uuid, name: Type.String(), columns: Type.Array(ColumnBody), created_at: Timestamp, updated_at: Timestamp }, { title: 'Table' });

const TableParams = Type.Object({ table_id: Uuid });
const ColumnParams = Type.Object({ table_id: Uuid, column_id: Uuid });

export function tableRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'custom tables');

  app.get(
    '/v1/tables/storage',
    route.secretOrSession({
      operationId: 'getTableStorage',
      summary: "The application's custom-table storage",
      response: { 200: Type.Object({ used_bytes: Type.Integer(), limit_bytes: Type.Integer(), used_percent: Type.Number({ minimum: 0, maximum: 100 }) }), ...errors(401, 403) },
    }),
    async (request) => tableStorage(deps, request.application!.id),
  );

  app.post(
    '/v1/tables',
    route.secretOrSession({
      operationId: 'createTable',
      summary: 'Create a table (at most 200 per application, 100 columns each)',
      body: Type.Object({ name: Name, columns: Type.Optional(Type.Array(ColumnInput, { maxItems: 100 })) }, { additionalProperties: NoOtherField }),
      response: { 201: TableBody, ...errors(400, 401, 403, 409) },
    }),
    async (request, reply) => reply.code(201).send(await createTable(deps, request.application!.id, request.body)),
  );

  app.get(
    '/v1/tables',
    route.secretOrSession({ operationId: 'listTables', summary: "The application's tables", response: { 200: ListOf('tables', TableBody), ...errors(401, 403) } }),
    async (request) => ({ tables: await listTables(deps, request.application!.id) }),
  );

  app.get(
    '/v1/tables/:table_id',
    route.secretOrSession({ operationId: 'getTable', summary: 'A table with its columns', params: TableParams, response: { 200: TableBody, ...errors(400, 401, 403, 404) } }),
    async (request) => getTable(deps, request.application!.id, request.params.table_id),
  );

  app.delete(
    '/v1/tables/:table_id',
    route.secret({ operationId: 'deleteTable', summary: 'Delete a table with its rows (their bytes are given back)', params: TableParams, response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404) } }),
    async (request) => deleted(deleteTable(deps, request.application!.id, request.params.table_id)),
  );

  app.post(
    '/v1/tables/:table_id/columns',
    route.secret({ operationId: 'addColumn', summary: 'Add a column; returns the table', params: TableParams, body: ColumnInput, response: { 201: TableBody, ...errors(400, 401, 403, 404, 409, 413) } }),
    async (request, reply) => reply.code(201).send(await addColumn(deps, request.application!.id, request.params.table_id, request.body)),
  );

  app.patch(
    '/v1/tables/:table_id/columns/:column_id',
    route.secret({
      operationId: 'updateColumn',
      summary: 'Change a column: name, required, default_value, position; type only while the table is empty',
      params: ColumnParams,
      body: ColumnPatch,
      response: { 200: TableBody, ...errors(400, 401, 403, 404, 409, 413) },
    }),
    async (request) => updateColumn(deps, request.application!.id, request.params.table_id, request.params.column_id, request.body),
  );

  app.delete(
    '/v1/tables/:table_id/columns/:column_id',
    route.secret({ operationId: 'deleteColumn', summary: 'Delete a column and its values', params: ColumnParams, response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404) } }),
    async (request) => deleted(deleteColumn(deps, request.application!.id, request.params.table_id, request.params.column_id)),
  );

  tableRowRoutes(app, deps, guards);
}
