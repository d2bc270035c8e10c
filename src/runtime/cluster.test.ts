import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { workerExecArgv, workerThreadPool, YOUNG_GENERATION_FLAG } from './cluster.js';
import { HEAP_GROWING_FLAG, heapGrowingFlag } from './heap-growth.js';

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
    const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe(`node ${YOUNG_GENERATION_FLAG} bin/gatehouse.js serve`);
  });

  it('every server process bounds the heap growth factor, unless node flags or NODE_OPTIONS name one', () => {
    expect(heapGrowingFlag([])).toBe(HEAP_GROWING_FLAG);
    expect(heapGrowingFlag(['--max-semi-space-size=8'], '--no-warnings')).toBe(HEAP_GROWING_FLAG);
    expect(heapGrowingFlag(['--heap-growing-percent=50'])).toBeUndefined();
    expect(heapGrowingFlag(['--heap_growing_percent', '10'])).toBeUndefined();
    expect(heapGrowingFlag([], '--max-old-space-size=512 --heap-growing-percent=30')).toBeUndefined();
    expect(heapGrowingFlag(['--heap-growing-percents=5'])).toBe(HEAP_GROWING_FLAG);
  });
});

describe("a worker's thread pool when the operator set none", () => {
  it('shares the cores out among the workers, 2 to 4 threads each', () => {
    expect(workerThreadPool(2, 2)).toBe(2);
    expect(workerThreadPool(8, 8)).toBe(2);
    expect(workerThreadPool(8, 2)).toBe(4);
    expect(workerThreadPool(16, 3)).toBe(4);
    expect(workerThreadPool(6, 2)).toBe(3);
    expect(workerThreadPool(1, 4)).toBe(2);
  });
});
