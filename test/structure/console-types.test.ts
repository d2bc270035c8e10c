import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The console's TSX (console/src) type-checked by tsc under console/tsconfig.json (strict), against the built
// @gatehouse/client: Rolldown bundles it without checking types, so this is where a wrong prop or a changed
// client signature fails (docs/console.md).

const ROOT = resolve(import.meta.dirname, '../..');

describe('the console', () => {
  it('type-checks under tsc --strict', { timeout: 120_000 }, async () => {
    const run = await promisify(execFile)(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(ROOT, 'console/tsconfig.json')], { cwd: ROOT }).then(
      () => ({ code: 0, output: '' }),
      (error: { code?: number; stdout?: string }) => ({ code: error.code ?? 1, output: error.stdout ?? String(error) }),
    );
    expect(run.output).toBe('');
    expect(run.code).toBe(0);
  });
});
