import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

// axe-core (Deque's accessibility engine, the one browsers' devtools use) run inside a real page. Its source
// is evaluated through the DevTools protocol, so a page's strict Content-Security-Policy (no inline script)
// does not stop it and the page itself needs no change to be checked.

const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  rule: string;
  impact: string | null;
  help: string;
  /** CSS selectors of the offending nodes (the first few). */
  nodes: string[];
}

/** Every violation axe finds on the page as it is now, of every severity, WCAG 2.x A/AA and best practices. */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(source);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ rule: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
}
