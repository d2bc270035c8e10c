import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

// An earlier release built beside this checkout, for the rolling-deploy tests (docs/upgrading.md): the
// commit's tree (git archive, so no worktree is registered), this checkout's node_modules linked in, and its
// own build. Kept by commit under the cache directory .ci/run uses ($XDG_CACHE_HOME or ~/.cache), so CI pays
// for a commit's build once; a build cut halfway is never taken (it is renamed into place when complete).

const ROOT = resolve(import.meta.dirname, '../..');
const CACHE = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'gatehouse-releases');

/** The commit `.ci/previous-release` pins: the release before this one that HEAD must serve beside. */
export function previousReleaseCommit(): string {
  return execFileSync('git', ['rev-parse', `${execFileSync('cat', [join(ROOT, '.ci/previous-release')]).toString().trim()}^{commit}`], { cwd: ROOT }).toString().trim();
}

/** The bin/gatehouse.js of `commit`'s build, building it first unless the cache has it. */
export function earlierRelease(commit: string): string {
  const full = execFileSync('git', ['rev-parse', `${commit}^{commit}`], { cwd: ROOT }).toString().trim();
  const dir = join(CACHE, full);
  const bin = join(dir, 'bin/gatehouse.js');
  if (existsSync(join(dir, '.built'))) return linked(dir);
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  try {
    execFileSync('sh', ['-c', `git archive ${full} | tar -x -C '${building}'`], { cwd: ROOT });
    symlinkSync(join(ROOT, 'node_modules'), join(building, 'node_modules'));
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: building, stdio: 'pipe' });
    // Releases from 3e0e5b8 on record their name; outside git it comes from GATEHOUSE_COMMIT.
    if (existsSync(join(building, 'tools/release-json.mjs'))) {
      execFileSync(process.execPath, ['tools/release-json.mjs'], { cwd: building, env: { ...process.env, GATEHOUSE_COMMIT: full } });
    }
    writeFileSync(join(building, '.built'), `${full}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    // Another process finished the same build meanwhile.
    if (existsSync(join(dir, '.built'))) return linked(dir);
    throw error;
  }
  return bin;
}

/**
 * The cached build's bin, its node_modules link pointing at this checkout's: the checkout that built it
 * (another worktree, a CI run's temporary directory) may be gone, and the link with it.
 */
function linked(dir: string): string {
  const link = join(dir, 'node_modules');
  const ours = join(ROOT, 'node_modules');
  let target: string | undefined;
  try {
    target = readlinkSync(link);
  } catch {
    target = undefined;
  }
  if (target !== ours && !existsSync(join(link, 'kysely'))) {
    // Renamed into place, so a test reading the link meanwhile sees the old one or the new, never none.
    const next = `${link}.${process.pid}`;
    rmSync(next, { force: true });
    symlinkSync(ours, next);
    renameSync(next, link);
  }
  return join(dir, 'bin/gatehouse.js');
}
