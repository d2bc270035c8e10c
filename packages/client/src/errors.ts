/**
 * An answer of Gatehouse other than 2xx: its status, its `detail` sentence and the request id to quote.
 * The same class as @gatehouse/server's. `status` is 0 when Gatehouse could not be reached at all.
 */
export class GatehouseError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly request_id: string | undefined;
  /** Seconds to wait before sending the same request again (429 and 503 carry it). */
  readonly retry_after: number | undefined;

  constructor(status: number, detail: string, requestId: string | undefined, retryAfter?: number) {
    super(`${status}: ${detail}`);
    this.name = 'GatehouseError';
    this.status = status;
    this.detail = detail;
    this.request_id = requestId;
    this.retry_after = retryAfter;
  }
}

/** The error for an answer, from its status, its `{detail}` body (when it has one) and its headers. */
export function errorFrom(status: number, body: unknown, header: (name: string) => string | null): GatehouseError {
  const detail = typeof (body as { detail?: unknown } | null)?.detail === 'string' ? (body as { detail: string }).detail : `HTTP ${status}`;
  const retryAfter = Number(header('retry-after'));
  return new GatehouseError(status, detail, header('x-request-id') ?? undefined, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
}
