// @gatehouse/api-types: Gatehouse's API as types, shared by @gatehouse/client and @gatehouse/server so the
// two never drift from the routes or from each other. Types only: nothing here reaches a bundle.
import type { components, operations, paths, routes } from './openapi.js';

export type { components, operations, paths, routes };

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body of an operation's 200 (or 201, or 202) answer. */
export type Ok<O extends keyof operations> = operations[O]['responses'] extends { 200: infer R }
  ? Json<R>
  : operations[O]['responses'] extends { 201: infer R }
    ? Json<R>
    : operations[O]['responses'] extends { 202: infer R }
      ? Json<R>
      : never;

/** The JSON body an operation takes. */
export type Body<O extends keyof operations> = NonNullable<operations[O]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;

/** The query parameters an operation takes. */
export type Query<O extends keyof operations> = operations[O]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;

/** Every error body: `detail` for people, `code` for programs. */
export type ErrorBody = components['schemas']['Error'];

/**
 * The stable codes of `ErrorBody.code` (docs/api.md, "Error codes"), and `network_error`, which the SDKs
 * raise when Gatehouse could not be reached at all (status 0). A published code keeps its meaning.
 */
export type ErrorCode = ErrorBody['code'] | 'network_error';

/**
 * What the SDKs' `GatehouseError` holds (the one class of @gatehouse/errors, which both re-export). Tell one
 * from any other error with `isGatehouseError(e)`: it checks a brand (the `Symbol.for('gatehouse.error')` key),
 * not `instanceof`, so it holds across two bundled copies of an SDK.
 */
export interface GatehouseErrorFields {
  /** The HTTP status; 0 when Gatehouse could not be reached. */
  readonly status: number;
  readonly code: ErrorCode;
  readonly detail: string;
  /** The X-Request-ID of the answer, to quote in a bug report. */
  readonly requestId: string | undefined;
  /** Seconds to wait before sending the same request again (429 and 503 carry it). */
  readonly retryAfter: number | undefined;
}
