import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// npm's own range reader (installed with the tree: many packages depend on it), typed for the two calls made.
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

// `engines` tells the truth (README, "Requirements"): the oldest Node of each line the range admits runs every
// package of the lock, so `npm install` on a supported Node warns of no engine (EBADENGINE). A dependency
// that drops a line (cookie 2 requires Node 22) fails here, not at an integrator's first install.
const ROOT = resolve(import.meta.dirname, '../..');
const lock = JSON.parse(readFileSync(resolve(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

describe.skipIf(process.env.TEST_DB === 'postgres')('engines', () => {
  it("every package of the lock accepts the oldest Node of each line of the root's range", () => {
    const range = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')).engines.node as string;
    const oldest = range.split('||').map((part) => semver.minVersion(part.trim())!.version);
    expect(oldest).toEqual(['20.19.0', '22.13.0']);
    const refused = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const wants = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      return wants ? oldest.filter((node) => !semver.satisfies(node, wants)).map((node) => `${path}@${entry.version} wants node ${wants}, not ${node}`) : [];
    });
    expect(refused).toEqual([]);
  });
});
