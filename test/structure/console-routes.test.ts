import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// console/src/routes.ts, the one table of the console's pages (docs/console.md, "Adding a page"): each path
// once, and each nav label once, since the tenant's and the app's navs are drawn from this table (a route
// listed twice showed its link twice in the nav: Users, Import and Settings did after a merge).

const source = readFileSync(resolve(import.meta.dirname, '../../console/src/routes.ts'), 'utf8');
const entries = [...source.matchAll(/^\s*\{ path: '([^']+)'.*$/gm)].map((m) => ({ path: m[1]!, line: m[0] }));
const label = (key: string, line: string) => new RegExp(`\\b${key}: '([^']+)'`).exec(line)?.[1];
const duplicates = (values: (string | undefined)[]) => values.filter((v, i) => v !== undefined && values.indexOf(v) !== i);

describe("the console's routes", () => {
  it('list each path, nav label and app nav label once', () => {
    expect(entries.length).toBeGreaterThan(20);
    expect(duplicates(entries.map((e) => e.path))).toEqual([]);
    expect(duplicates(entries.map((e) => label('nav', e.line)))).toEqual([]);
    expect(duplicates(entries.map((e) => label('appNav', e.line)))).toEqual([]);
  });
});
