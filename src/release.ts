import { readFileSync } from 'node:fs';

/**
 * Which build this process runs: the package version and the commit `npm run build` recorded in
 * dist/release.json (tools/release-json.mjs). Read once at start-up; "unknown" when the file is missing
 * (a build by hand with tsc alone) or the build was made outside git.
 */
export interface Release {
  version: string;
  commit: string;
  /** `version+commit` (12 hex digits): GET /v1/health's `release` and `gatehouse --version`. */
  name: string;
}

function read(): Release {
  const fromFile = (path: string): Record<string, unknown> => {
    try {
      return JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  // dist/src/release.js: the record is ../release.json, the package ../../package.json.
  const recorded = fromFile('../release.json');
  const version = typeof recorded.version === 'string' ? recorded.version : String(fromFile('../../package.json').version ?? 'unknown');
  const commit = typeof recorded.commit === 'string' && /^([0-9a-f]{7,40}|unknown)$/.test(recorded.commit) ? recorded.commit : 'unknown';
  return { version, commit, name: `${version}+${commit === 'unknown' ? commit : commit.slice(0, 12)}` };
}

export const RELEASE: Release = read();
