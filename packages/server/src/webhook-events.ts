// The events Gatehouse sends to webhook endpoints, as the body carries them: `{type, timestamp, data}`, where
// `data` holds the event's own fields (event_id, app_id, tenant_id, actor, user_id, ip, user_agent) with the
// type's data flattened in. New types may be added; a receiver ignores those it does not know.

export type ActorType = 'user' | 'secret_key' | 'member' | 'token' | 'operator' | 'system';

/** The fields every event's `data` carries. */
export interface EventFields {
  /** `evt_` + base62: the `webhook-id` header too, the same on every retry and replay (de-duplicate by it). */
  event_id: string;
  app_id: string;
  tenant_id: string;
  actor: { type: ActorType; id: string | null };
  user_id: string | null;
  /** The client IP of the request that caused it; null for events no request caused. */
  ip: string | null;
  user_agent: string | null;
}

/** What each type adds to `data`. */
export interface EventData {
  'user.created': { source: 'signup' | 'server' | 'import' | 'oauth' | 'sso' | 'bot' };
  'user.updated': { changed: string[] };
  'user.deleted': Record<never, never>;
  'user.exported': Record<never, never>;
  'session.created': {
    session_id: string;
    amr: string[];
    method: 'password' | 'code' | 'magic_link' | 'passkey' | 'oauth' | 'sso' | 'bot' | 'sign_in_token' | 'reset';
    provider?: string;
  };
  'session.revoked': {
    session_id: string;
    reason: 'logout' | 'revoked' | 'reuse_detected' | 'password_changed' | 'user_deleted' | 'others_revoked' | 'claimed' | 'mfa_enrolled' | 'banned';
  };
  /** Sent only to endpoints whose event_types name it (`*` does not select it). */
  'signin.failed': { reason: string };
  'password.changed': { via: 'reset' | 'change' };
  'email.changed': Record<never, never>;
  'mfa.factor_added': Record<string, unknown>;
  'mfa.factor_removed': Record<string, unknown>;
  'mfa.recovery_codes_renewed': Record<string, unknown>;
  'app.updated': Record<string, unknown>;
  'app.secret_key_rotated': Record<string, unknown>;
  'app.signing_key_rotated': Record<string, unknown>;
  'webhook.created': { webhook_id: string };
  'webhook.updated': { webhook_id: string };
  'webhook.deleted': { webhook_id: string };
  'webhook.disabled': { webhook_id: string; reason: string };
  /** POST /v1/webhooks/{id}/test: sent to that endpoint alone. */
  'webhook.test': { webhook_id: string };
}

export type GatehouseEventType = keyof EventData;

/** One event as a receiver gets it; narrow on `type` (`switch (event.type)`) to type its `data`. */
export type GatehouseWebhookEvent = {
  [T in GatehouseEventType]: { type: T; timestamp: string; data: EventFields & EventData[T] };
}[GatehouseEventType];
