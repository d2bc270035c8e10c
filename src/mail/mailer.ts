/** One email, with both parts: the plain-text part holds any code as its own word and any link in full. */
export interface Mail {
  to: string;
  /** The app's sender (docs/email.md); absent: EMAIL_FROM. */
  from?: string;
  /** The app's Reply-To; absent: none. */
  replyTo?: string;
  /** Which kind of email (mail/kinds.ts): what a log line names instead of the subject, which a tenant words. */
  kind?: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * Sends mail through SMTP (SMTP_URL) or, when unset, writes it to the log and ./data/outbox/.
 * `send` rejects when delivery fails: callers answer a clear 5xx, nothing is silently lost.
 */
export interface Mailer {
  /**
   * How many emails the transport carries at once (the SMTP pool's connections). A caller that sends more
   * at once only queues them inside the transport, where no deadline of its own can reach them.
   */
  readonly concurrency: number;
  /** Hands the email over; an aborted `signal` fails it at once and drops the connection carrying it. */
  send(mail: Mail, signal?: AbortSignal): Promise<void>;
  /**
   * Opens no new connection from now on. Idle connections close at once; with `force`, so do those in the
   * middle of a delivery (which then fails).
   */
  close(options?: { force?: boolean }): Promise<void>;
}
