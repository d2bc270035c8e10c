// Events and their per-day counts (migration 0032; docs/events.md).

export interface EventsTable {
  /** "evt_" + 9 base36 characters of the occurrence time in ms + 16 random base62 characters. */
  event_id: string;
  tenant_id: string;
  /** null for a tenant's own (management) events. */
  app_id: string | null;
  type: string;
  occurred_at: string;
  actor_type: string;
  actor_id: string | null;
  user_id: string | null;
  /** A JSON object as text; never a password, code, token, hash or secret. */
  data: string;
  ip: string | null;
  user_agent: string | null;
}

/** How many events of a type a scope (an app id, or a tenant id for its own events) had on a UTC day, in 16 slots. */
export interface EventCountsTable {
  scope_id: string;
  day: string;
  type: string;
  slot: string;
  count: number;
}
