// client.from(table): a custom table's rows as the signed-in user sees them (their own, or with an active
// organisation that organisation's; docs/tables.md, docs/organizations.md),
// typed by the caller's row type, with a small query builder whose pages follow the server's cursors.
import { errorFrom } from './errors.js';
import type { Http } from './http.js';
import type { Ok, Table } from './types.js';

/** A row's fields: column name → value (a null field is absent). A row type may be any object type, an
 * `interface Note { ... }` as well as a `type`; `RowData` is the default when none is given. */
export type RowData = Record<string, unknown>;

/** A row as Gatehouse answers it, with `data` typed as the caller says. */
export interface Row<T extends object = RowData> {
  row_id: string;
  data: T;
  /** The user who owns the row, or null for an organisation's row. */
  user_id: string | null;
  /** The organisation that owns the row (docs/organizations.md), or null for a user's. */
  organization_id: string | null;
  /** The user whose session wrote the row (null: the secret key). */
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface Page<T extends object = RowData> {
  rows: Row<T>[];
  /** Give it to `.after()` for the next page; null on the last one. */
  next_cursor: string | null;
}

export type Op = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'contains' | 'is_null';
type Field<T> = (keyof T & string) | 'created_at' | 'updated_at';
interface Condition {
  field: string;
  op: Op;
  value: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A query of one table: conditions (all must hold), one sort, a page size and a cursor. Await it for one
 * page, or iterate it (`for await (const row of query)`) for every row, page after page.
 */
export class Query<T extends object> implements PromiseLike<Page<T>>, AsyncIterable<Row<T>> {
  private readonly conditions: Condition[] = [];
  private sort: { field: string; dir: 'asc' | 'desc' } | undefined;
  private size: number | undefined;
  private cursor: string | null = null;

  constructor(private readonly run: (body: object) => Promise<Page<T>>) {}

  where<K extends Field<T>>(field: K, op: Op, value: K extends keyof T ? T[K] | T[K][] | boolean : unknown): this {
    this.conditions.push({ field, op, value });
    return this;
  }
  /** `field = value`; `neq`, `gt`, `gte`, `lt`, `lte` compare the same way (≠, >, ≥, <, ≤). */
  readonly eq = this.comparison('eq');
  readonly neq = this.comparison('ne');
  readonly gt = this.comparison('gt');
  readonly gte = this.comparison('gte');
  readonly lt = this.comparison('lt');
  readonly lte = this.comparison('lte');

  /** One operator's method: the field and a value of its column's type. */
  private comparison(op: Op) {
    return <K extends Field<T>>(field: K, value: K extends keyof T ? T[K] : string): this => this.where(field, op, value as never);
  }
  in<K extends Field<T>>(field: K, values: K extends keyof T ? T[K][] : string[]): this {
    return this.where(field, 'in', values as never);
  }
  /** A case-insensitive substring of a text column. */
  contains<K extends Field<T>>(field: K, text: string): this {
    return this.where(field, 'contains', text as never);
  }
  isNull<K extends Field<T>>(field: K, isNull = true): this {
    return this.where(field, 'is_null', isNull as never);
  }
  /** Sort by one field (ties by row id); `created_at` ascending by default. */
  order(field: Field<T>, dir: 'asc' | 'desc' = 'asc'): this {
    this.sort = { field, dir };
    return this;
  }
  /** Rows per page, 1-200 (50 by default). */
  limit(rows: number): this {
    this.size = rows;
    return this;
  }
  /** Continue after a page: its `next_cursor`. */
  after(cursor: string | null): this {
    this.cursor = cursor;
    return this;
  }

  private body(cursor: string | null): object {
    return {
      ...(this.conditions.length ? { filter: this.conditions } : {}),
      ...(this.sort ? { sort: this.sort } : {}),
      ...(this.size ? { limit: this.size } : {}),
      cursor,
    };
  }

  then<A = Page<T>, B = never>(onfulfilled?: ((page: Page<T>) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): PromiseLike<A | B> {
    return this.run(this.body(this.cursor)).then(onfulfilled, onrejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Row<T>> {
    let cursor = this.cursor;
    do {
      const page = await this.run(this.body(cursor));
      yield* page.rows;
      cursor = page.next_cursor;
    } while (cursor);
  }
}

export class TableApi<T extends object> {
  private id: Promise<string> | undefined;

  constructor(
    private readonly http: Http,
    private readonly table: string,
    /** The organisation new rows belong to (organizations.from): the session's active one. */
    private readonly organization?: () => Promise<string>,
  ) {}

  /** The table's id: given, or found by name among the app's tables. */
  private tableId(): Promise<string> {
    this.id ??= UUID.test(this.table)
      ? Promise.resolve(this.table)
      : this.http.json<Ok<'listTables'>>('GET', '/v1/tables', { auth: true }).then(({ tables }) => {
          const found = tables.find((t) => t.name === this.table);
          if (!found) throw errorFrom(404, { detail: `no table named ${this.table}` }, () => null);
          return found.table_id;
        });
    this.id.catch(() => (this.id = undefined));
    return this.id;
  }

  private async path(rest = ''): Promise<string> {
    return `/v1/tables/${await this.tableId()}${rest}`;
  }

  /** The table and its columns. */
  async describe(): Promise<Table> {
    return this.http.json('GET', await this.path(), { auth: true });
  }

  /** Adds a row owned by the signed-in user (through `organizations.from`: by the active organisation); defaults are filled in. */
  async insert(data: T): Promise<Row<T>> {
    const organizationId = this.organization && (await this.organization());
    return this.http.json('POST', await this.path('/rows'), { auth: true, body: { data, ...(organizationId && { organization_id: organizationId }) } });
  }

  async get(rowId: string): Promise<Row<T>> {
    return this.http.json('GET', await this.path(`/rows/${encodeURIComponent(rowId)}`), { auth: true });
  }

  /** Merges `data` into the row: given fields replace, `null` clears one. */
  async update(rowId: string, data: { [K in keyof T]?: T[K] | null }): Promise<Row<T>> {
    return this.http.json('PATCH', await this.path(`/rows/${encodeURIComponent(rowId)}`), { auth: true, body: { data } });
  }

  async delete(rowId: string): Promise<void> {
    await this.http.json('DELETE', await this.path(`/rows/${encodeURIComponent(rowId)}`), { auth: true });
  }

  /** A query of the user's rows: chain conditions, then await a page or iterate every row. */
  select(): Query<T> {
    return new Query<T>(async (body) => this.http.json('POST', await this.path('/rows/query'), { auth: true, body }));
  }
}
