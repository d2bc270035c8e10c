/**
 * `table.column as <prefix>column` for each column, as Kysely's select takes them: a joined table's columns
 * read into one row under names kept apart from the main table's (`users.email as user_email`).
 */
export function prefixed<T extends string, P extends string, const C extends readonly string[]>(table: T, prefix: P, columns: C) {
  return columns.map((column) => `${table}.${column} as ${prefix}${column}`) as { [K in keyof C]: `${T}.${C[K] & string} as ${P}${C[K] & string}` };
}
