import type { Selectable } from 'kysely';

/** An email waiting to be sent (0006): `sealed` is the message JSON sealed with MASTER_KEY. */
export interface MailOutboxTable {
  id: string;
  app_id: string;
  sealed: string;
  attempts: number;
  created_at: string;
  next_attempt_at: string;
  give_up_at: string;
  lease_holder: string | null;
  lease_until: string | null;
  last_error: string | null;
  gave_up_at: string | null;
  /** SHA-256 of `app_id:recipient` (lower-cased), for a user's deletion (migration 0025); null on older rows. */
  recipient_hash: string | null;
}

export type MailOutboxRow = Selectable<MailOutboxTable>;

/** A tenant's own template of one kind of email, in one locale, for one app (migration 0038): Mustache sources. */
export interface EmailTemplatesTable {
  app_id: string;
  kind: string;
  locale: string;
  subject: string;
  text_body: string;
  html_body: string;
  created_at: string;
  updated_at: string;
}

export type EmailTemplateRow = Selectable<EmailTemplatesTable>;
