import type { Deps } from '../deps.js';
import { logIsPretty } from '../observability/log-pretty.js';
import { ensureConsoleApp, setupLinkIfNoOperator } from '../services/management/console-app.js';

/**
 * At start: the console app made once (docs/management.md); when `announce` (one process of a start) and no
 * console user is an operator yet, a fresh setup link as one line on stderr, never in the log on stdout (it is a
 * credential until used): plain text on a terminal, a JSON line where the log is JSON (PostgreSQL, or no
 * terminal), so a collector reading both streams still parses every line.
 */
export async function prepareConsole(deps: Deps, announce: boolean): Promise<void> {
  await ensureConsoleApp(deps);
  if (!announce) return;
  const link = await setupLinkIfNoOperator(deps, deps.config.publicBaseUrl);
  if (!link) return;
  const text = 'Set up the Gatehouse console (single use, 24 hours)';
  if (logIsPretty(deps.config.database)) process.stderr.write(`${text}: ${link}\n`);
  else process.stderr.write(JSON.stringify({ level: 30, time: Date.now(), code: 'console_setup_link', msg: text, setup_url: link }) + '\n');
}
