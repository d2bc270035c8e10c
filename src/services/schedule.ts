/**
 * Runs `job` `firstAfterMs` after start and then every `everyMs` in the background, never two runs of it at
 * once in this process (a tick that finds the previous run still going is skipped); the timers do not keep
 * the process alive. Returns the stop function.
 */
export function runEvery(job: () => Promise<unknown>, everyMs: number, firstAfterMs: number): () => void {
  let running = false;
  const run = () => {
    if (running) return;
    running = true;
    void job().finally(() => (running = false));
  };
  const first = setTimeout(run, firstAfterMs);
  const timer = setInterval(run, everyMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
