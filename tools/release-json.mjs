#!/usr/bin/env node
// Run by `npm run build` after tsc: records which build dist/ is in dist/release.json, read at run time
// by src/release.ts (GET /v1/health's `release`, `gatehouse --version`, gatehouse_build_info). The commit
// is GATEHOUSE_COMMIT when set (an image built from a source tree without .git passes it as a build
// argument), else `git rev-parse HEAD`, else "unknown" (a tarball outside git).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

function commit() {
  const given = process.env.GATEHOUSE_COMMIT?.trim();
  if (given && /^[0-9a-f]{7,40}$/i.test(given)) return given.toLowerCase();
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'unknown';
  }
}

mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist/release.json'), JSON.stringify({ version, commit: commit() }) + '\n');
