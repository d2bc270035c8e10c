// The shapes the generated types (openapi.ts, laid out by the Gatehouse repository's tools/openapi-layout.ts)
// are written with, declared once here. Each is the type openapi-typescript writes out in full, to the letter.

/** An answer with a JSON body, as openapi-typescript writes one. */
export type Json<T> = { headers: { [name: string]: unknown }; content: { 'application/json': T } };
/** A JSON request body. */
export type JsonBody<T> = { content: { 'application/json': T } };
/** A page's last field. */
export type NextCursor = {
  /** @description where the next page starts; null on the last page */
  next_cursor: string | null;
};
/** Where the browser goes next. */
export type Redirect = { headers: { /** @description where the browser goes next */ Location?: string; [name: string]: unknown }; content?: never };
/** `paths` from `routes` (each operation's method and path): for each path, its operations by method. */
export type PathsOf<R extends { [O in keyof R]: [string, string] }, Operations> = {
  [P in R[keyof R][1]]: { [O in keyof R as R[O][1] extends P ? R[O][0] : never]: Operations[O & keyof Operations] };
};
/** An operation's parameters: none, only in its path, only (optional) in its query, or both. */
export type NoParameters = { query?: never; header?: never; path?: never; cookie?: never };
export type InPath<P> = { query?: never; header?: never; path: P; cookie?: never };
export type InQuery<Q> = { query?: Q; header?: never; path?: never; cookie?: never };
export type InPathAndQuery<P, Q> = { query?: Q; header?: never; path: P; cookie?: never };
