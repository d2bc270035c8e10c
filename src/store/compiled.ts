import { PostgresAdapter, type Compilable, type CompiledQuery } from 'kysely';
import { prepareOnPostgres } from './pg-pool.js';
import { executeCompiled, type Db } from './db.js';

interface Compiled {
  query: CompiledQuery;
  /** For each parameter of the SQL: the index of the named value, or the constant the builder used. */
  slots: ({ name: string } | { value: unknown })[];
}

/**
 * A hot-path query built and compiled by Kysely once per dialect rather than on every call (the SQL
 * depends only on the dialect's adapter, which a transaction shares with its database handle, so one
 * compilation serves every transaction too).
 * `build` receives marker strings in place of the named values; each marker becomes a parameter of the
 * compiled SQL, and every call swaps the real values in. The SQL is exactly what Kysely produced, so the
 * dialect's quoting and placeholders stay Kysely's; constants the builder wrote stay constants.
 */
export function compiledQuery<N extends string, R>(names: readonly N[], build: (db: Db, values: Record<N, string>) => Compilable<R>) {
  const byAdapter = new WeakMap<object, Compiled>();
  const markers = Object.fromEntries(names.map((name) => [name, `\u0000gatehouse:${name}\u0000`])) as Record<N, string>;
  const markerNames = new Map<unknown, string>(names.map((name) => [markers[name], name]));

  function compile(db: Db): Compiled {
    const query = build(db, markers).compile();
    if (db.getExecutor().adapter instanceof PostgresAdapter) prepareOnPostgres(query.sql);
    const slots = query.parameters.map((parameter) => {
      const name = markerNames.get(parameter);
      return name === undefined ? { value: parameter } : { name };
    });
    for (const name of names) {
      if (!slots.some((slot) => 'name' in slot && slot.name === name)) throw new Error(`compiledQuery: ${name} is not a parameter of the query`);
    }
    return { query, slots };
  }

  /** The compiled statement with these values, for the dialect of `db`. */
  function statement(db: Db, values: Record<N, unknown>): CompiledQuery<R> {
    const adapter = db.getExecutor().adapter;
    let compiled = byAdapter.get(adapter);
    if (!compiled) {
      compiled = compile(db);
      byAdapter.set(adapter, compiled);
    }
    const parameters = compiled.slots.map((slot) => ('name' in slot ? values[slot.name as N] : slot.value));
    return { ...compiled.query, parameters } as CompiledQuery<R>;
  }

  const run = (db: Db, values: Record<N, unknown>): Promise<R[]> => executeCompiled(db, statement(db, values));
  return Object.assign(run, { statement });
}
