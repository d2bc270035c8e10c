// The console's entry (docs/console.md): reads which app it signs in through from /console/config.json
// (served by Gatehouse, not inlined: the CSP allows no inline script), starts the session and renders.
import { render } from 'preact';
import { App } from './app.js';
import { startSession } from './session.js';

interface ConsoleConfig {
  app_id: string;
  publishable_key: string;
}

const root = document.getElementById('app')!;
try {
  const answer = await fetch('/console/config.json', { headers: { accept: 'application/json' } });
  if (!answer.ok) throw new Error(`the console's configuration did not load (${answer.status})`);
  const config = (await answer.json()) as ConsoleConfig;
  startSession(config.publishable_key, document.body.dataset.powWorker);
  root.replaceChildren();
  render(<App />, root);
} catch (error) {
  root.textContent = error instanceof Error ? error.message : String(error);
}
