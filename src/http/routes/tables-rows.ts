import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { MAX_IN_VALUES, PageJson, queryRows, type QueryInput } from '../../services/tables/query.js';
import { cachesTableMetadata } from '../../services/tables/metadata-cache.js';
import { createRow, deleteRow, getRow, updateRow, type Caller } from '../../services/tables/rows.js';
import type { Guards } from '../plugins/guards.js';
import { deleted, errors, StatusBody, Timestamp, Uuid } from '../schemas.js';
import { NoOtherField } from './tables-schemas.js';
import type { Http } from '../types.js';
import { routesOf } from '../route-security.js';
import { callerOf } from './tables-caller.js';

// docs/tables.md: rows and queries. Secret (every row, may set user_id) or
// Publishable + Session (only the session user's rows, or its active organisation's; another's row is 404).

const RowBody = Type.Object({
  row_id: Uuid,
  data: Type.Record(Type.String(), Type.Unknown()),
  user_id: Type.Union([Uuid, Type.Null()]),
  organization_id: Type.Union([Uuid, Type.Null()], { description: 'the organisation that owns the row (docs/organizations.md)' }),
  created_by: Type.Union([Uuid, Type.Null()], { description: 'the user whose session wrote the row' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { title: 'Row' });

const Data = Type.Record(Type.String(), Type.Unknown(), { description: 'values keyed by column name' });
const TableParams = Type.Object({ table_id: Uuid });
const RowParams = Type.Object({ table_id: Uuid, row_id: Uuid });

const Filter = Type.Object(
  {
    field: Type.String({ minLength: 1, maxLength: 63 }),
    op: Type.Union(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'is_null'].map((op) => Type.Literal(op))),
    value: Type.Optional(Type.Unknown({ description: `in: a list of at most ${MAX_IN_VALUES}; is_null: true or false` })),
  },
  { title: 'RowFilter', additionalProperties: NoOtherField },
);

const QueryBody = Type.Object(
  {
    filter: Type.Optional(Type.Union([Filter, Type.Array(Filter, { maxItems: 50, description: 'all must hold (AND)' })])),
    sort: Type.Optional(Type.Object({ field: Type.String({ minLength: 1, maxLength: 63 }), dir: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'asc' }) }, { additionalProperties: NoOtherField })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    cursor: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 4096 }), Type.Null()])),
  },
  { additionalProperties: NoOtherField },
);

/**
 * A page arrives as its JSON text (PageJson: rows written as records by the database on PostgreSQL, by
 * JSON.stringify on SQLite), not through the response schema's compiled serializer, whose walk of each
 * row's free-form `data` cost about twice V8's own (a 50-row page: 62 → 33 µs in a micro-benchmark).
 * Errors are written with JSON.stringify. The schema still documents the response.
 */
const PageBody = Type.Object({ rows: Type.Array(RowBody), next_cursor: Type.Union([Type.String(), Type.Null()]) }, { title: 'RowPage' });
/** The handler's answer, typed as the schema's body: PageJson is that body as its text, which pageJson writes out. */
const asPageBody = (page: PageJson) => page as unknown as Static<typeof PageBody>;
const pageJson = () => (body: unknown) => (body instanceof PageJson ? body.text : JSON.stringify(body));

export function tableRowRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'custom tables');

  /**
   * A session user's row write counts in its window (docs/tables.md: 300 per 60 s per user), keyed by app
   * and user id, never an email. The secret key is the app's own server and is not limited.
   */
  const countWrite = async (appId: string, caller: Caller): Promise<Caller> => {
    if (caller.kind === 'user') await deps.limiter.consume('row_write_user', `${appId}:${caller.userId}`);
    return caller;
  };

  app.post(
    '/v1/tables/:table_id/rows',
    route.secretOrSession({
      operationId: 'insertRow',
      summary: 'Create a row (data at most 256 KiB; 413 past the storage limit)',
      params: TableParams,
      body: Type.Object(
        {
          data: Data,
          user_id: Type.Optional(Type.Union([Uuid, Type.Null()])),
          organization_id: Type.Optional(Type.Union([Uuid, Type.Null()], { description: "the organisation that owns the row: a session's active organisation (docs/organizations.md)" })),
        },
        { additionalProperties: NoOtherField },
      ),
      response: { 201: RowBody, ...errors(400, 401, 403, 404, 413, 429) },
    }),
    async (request, reply) => {
      const appId = request.application!.id;
      const caller = await countWrite(appId, callerOf(request));
      return reply.code(201).send(await createRow(deps, appId, request.params.table_id, caller, request.body));
    },
  );

  app.post(
    '/v1/tables/:table_id/rows/query',
    {
      ...route.secretOrSession({
        operationId: 'queryRows',
        summary: 'Filter (AND of field/op/value), sort and page by cursor',
        params: TableParams,
        body: QueryBody,
        response: { 200: PageBody, ...errors(400, 401, 403, 404) },
      }),
      // The same guard, presuming on PostgreSQL: there the page's own statement confirms a secret key this node has seen before.
      preHandler: cachesTableMetadata(deps.store.dialect) ? guards.presumingSecretOrSession : guards.secretOrSession,
      serializerCompiler: pageJson,
    },
    async (request) => {
      const input = request.body as QueryInput;
      const page = await guards.presumed(
        request,
        (key) => queryRows(deps, key.appId, request.params.table_id, callerOf(request), input, key.keyHash),
        () => queryRows(deps, request.application!.id, request.params.table_id, callerOf(request), input),
      );
      return asPageBody(page);
    },
  );

  app.get(
    '/v1/tables/:table_id/rows/:row_id',
    route.secretOrSession({ operationId: 'getRow', summary: 'A row', params: RowParams, response: { 200: RowBody, ...errors(400, 401, 403, 404) } }),
    async (request) => getRow(deps, request.application!.id, request.params.table_id, request.params.row_id, callerOf(request)),
  );

  app.patch(
    '/v1/tables/:table_id/rows/:row_id',
    route.secretOrSession({
      operationId: 'updateRow',
      summary: 'Merge data into the row; null clears a non-required field',
      params: RowParams,
      body: Type.Object({ data: Data }, { additionalProperties: NoOtherField }),
      response: { 200: RowBody, ...errors(400, 401, 403, 404, 413, 429) },
    }),
    async (request) => {
      const appId = request.application!.id;
      const caller = await countWrite(appId, callerOf(request));
      return updateRow(deps, appId, request.params.table_id, request.params.row_id, caller, request.body);
    },
  );

  app.delete(
    '/v1/tables/:table_id/rows/:row_id',
    route.secretOrSession({ operationId: 'deleteRow', summary: 'Delete a row', params: RowParams, response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404, 429) } }),
    async (request) => {
      const appId = request.application!.id;
      return deleted(deleteRow(deps, appId, request.params.table_id, request.params.row_id, await countWrite(appId, callerOf(request))));
    },
  );
}
