import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { root, tsBlocks, typeCheck } from '../helpers/readme-types.js';

// packages/client/README.md's ```ts blocks type-check under `tsc --strict` against the built package. The
// quick start (the first block) is a module as written. The later blocks are fragments that go on from it
// (they use its `gatehouse`), so each runs in a function after it; the names a snippet leaves to the reader
// (the form's `email`, the page's `render`) are declared below with the types a page would give them, and
// nothing else is added.

const reader = `
import { isGatehouseError, type MfaRequiredError, type Session } from '@gatehouse/client';
declare const email: string, password: string, code: string, file: File;
interface Note { id: string; title: string; done: boolean; created_at: string }
declare function render(session: Session | null): void;
declare function bar(fraction: number): void;
declare function showSecondFactor(mfaToken: string): void;
declare function showCheckYourEmail(): void;
declare function showWrongPassword(): void;
declare function showTryAgainIn(seconds: number | undefined): void;
export {};
`;

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("48 client sdk: the README's TypeScript snippets type-check under tsc --strict (quick start, getToken, error codes)", async () => {
  const [quickStart, ...fragments] = tsBlocks(await readFile(join(root, 'packages/client/README.md'), 'utf8'));
  expect(quickStart).toContain("from '@gatehouse/client'");
  expect(fragments.length).toBeGreaterThanOrEqual(2);
  const module = [reader, quickStart, ...fragments.map((code, i) => `async function fragment${i}() {\n${code}\n}\nvoid fragment${i};`)].join('\n');
  const run = await typeCheck([module], { '@gatehouse/client': 'packages/client/dist/index.d.ts' });
  dir = run.dir;
  expect(run.output).toBe('');
  expect(run.code).toBe(0);
}, 120_000);
