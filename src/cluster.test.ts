import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workerExecArgv, YOUNG_GENERATION_FLAG } from './cluster.js';

describe('the node flags of a server process', () => {
  it('workers get the young-generation bound, after the primary flags, unless a size is set', () => {
    expect(workerExecArgv([])).toEqual([YOUNG_GENERATION_FLAG]);
    expect(workerExecArgv(['--enable-source-maps'], '--no-warnings')).toEqual(['--enable-source-maps', YOUNG_GENERATION_FLAG]);
    expect(workerExecArgv(['--max-semi-space-size=4'])).toEqual(['--max-semi-space-size=4']);
    expect(workerExecArgv(['--max_semi_space_size', '2'])).toEqual(['--max_semi_space_size', '2']);
    expect(workerExecArgv([], '--max-old-space-size=512 --max-semi-space-size=16')).toEqual([]);
    // Another flag that merely starts alike is not a size.
    expect(workerExecArgv(['--max-semi-space-sizes'])).toEqual(['--max-semi-space-sizes', YOUNG_GENERATION_FLAG]);
  });

  it('npm start runs the server with the same bound', () => {
    const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe(`node ${YOUNG_GENERATION_FLAG} bin/gatehouse.js serve`);
  });
});
