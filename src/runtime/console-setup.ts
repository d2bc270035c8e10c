import type { Deps } from '../deps.js';
import { ensureConsoleApp, setupLinkIfNoOperator } from '../services/management/console-app.js';

/**
 * At start: the console app made once (docs/management.md); when `announce` (one process of a start) and no
 * console user is an operator yet, a fresh setup link as one plain line on stderr, never in the JSON log on
 * stdout (it is a credential until used, kept out of what log collectors store).
 */
export async function prepareConsole(deps: Deps, announce: boolean): Promise<void> {
  await ensureConsoleApp(deps);
  if (!announce) return;
  const link = await setupLinkIfNoOperator(deps, deps.config.publicBaseUrl);
  if (link) process.stderr.write(`Set up the Gatehouse console (single use, 24 hours): ${link}\n`);
}
