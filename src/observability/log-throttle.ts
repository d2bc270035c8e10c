/**
 * One log line per key per interval. An outage fails every request the same way: one line per cause every
 * few seconds, with how many were left out since, tells the operator as much as a line (and a stack) per
 * request, and keeps the log readable and small while it lasts.
 */
export class LogThrottle {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(private readonly everyMs: number) {}

  /**
   * Whether a line for `key` may be written now: the number of lines left out since the previous one
   * (write it with the line), or undefined when one was written within the interval (this one is counted).
   */
  admit(key: string, now = Date.now()): number | undefined {
    const seen = this.last.get(key);
    if (seen && now - seen.at < this.everyMs) {
      seen.suppressed++;
      return undefined;
    }
    this.last.set(key, { at: now, suppressed: 0 });
    return seen?.suppressed ?? 0;
  }
}
