// The shapes of events (docs/events.md): what a change records, who made it and from where.

export type ActorType = 'user' | 'secret_key' | 'member' | 'token' | 'operator' | 'system';

/** Who made a change: the user in their own session, the app's secret key, a console member, a tenant token, the CLI's operator, a job. */
export interface Actor {
  type: ActorType;
  id: string | null;
}

/** Who made a change and from where; ip and userAgent are null when no request caused it (CLI, jobs). */
export interface EventContext {
  actor: Actor;
  ip: string | null;
  userAgent: string | null;
}

/** One event to record, in the transaction of the change it records. `data` never holds a password, code, token, hash or secret. */
export interface NewEvent {
  type: string;
  tenantId: string;
  /** null for a tenant's own (management) events. */
  appId: string | null;
  actor: Actor;
  userId: string | null;
  data: Record<string, unknown>;
  ip: string | null;
  userAgent: string | null;
}

/** An event as the API answers it. */
export interface Event {
  event_id: string;
  type: string;
  occurred_at: string;
  tenant_id: string;
  app_id: string | null;
  actor: Actor;
  user_id: string | null;
  data: Record<string, unknown>;
  ip: string | null;
  user_agent: string | null;
}

/** Changes no request caused: maintenance and purge jobs. */
export const SYSTEM_CONTEXT: EventContext = { actor: { type: 'system', id: null }, ip: null, userAgent: null };

/** Changes made with the CLI on the server (`gatehouse ...`). */
export const OPERATOR_CONTEXT: EventContext = { actor: { type: 'operator', id: null }, ip: null, userAgent: null };

/** The context's actor, ip and user agent on an event of `type` (a shorthand for the callers). */
export function eventOf(context: EventContext, fields: Omit<NewEvent, 'actor' | 'ip' | 'userAgent'>): NewEvent {
  return { ...fields, actor: context.actor, ip: context.ip, userAgent: context.userAgent };
}

/** The user acting in their own name from `client` (a sign-in's or a reset's request). */
export function userContext(userId: string, client?: { ip: string | null; userAgent: string | null }): EventContext {
  return { actor: { type: 'user', id: userId }, ip: client?.ip ?? null, userAgent: client?.userAgent ?? null };
}
