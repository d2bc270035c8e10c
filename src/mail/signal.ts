/** Tells this node's mail worker that something was queued (a no-op until a worker listens: the CLI has none). */
export class MailSignal {
  private listener: (() => void) | undefined;
  listen(listener: () => void): void {
    this.listener = listener;
  }
  wake(): void {
    this.listener?.();
  }
}
