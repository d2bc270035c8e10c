/** One email, with both parts: the plain-text part holds any code as its own word and any link in full. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * Sends mail through SMTP (SMTP_URL) or, when unset, writes it to the log and ./data/outbox/.
 * `send` rejects when delivery fails: callers answer a clear 5xx, nothing is silently lost.
 */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): Promise<void>;
}
