import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server.js';

const run = promisify(execFile);

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  /** `pg_ctl restart -m fast`: what `pg_ctlcluster ... restart` does, on this cluster only. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP to the postmaster and every backend: a database that accepts nothing and answers nothing. */
  freeze(): Promise<void>;
  /** SIGCONT to what freeze() stopped. */
  thaw(): Promise<void>;
  /** Stops the cluster and deletes its files. */
  destroy(): Promise<void>;
}

/** The newest installed PostgreSQL's binaries (Debian layout), or undefined when none is installed. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  const bin = version && join(root, version, 'bin');
  return bin && existsSync(join(bin, 'initdb')) ? bin : undefined;
}

/**
 * A PostgreSQL cluster of the test's own (initdb into a temporary directory, a free port), so tests that
 * restart or stop the database never disturb the shared server other test files use. As root the
 * binaries run as the postgres user (initdb refuses root).
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pg-'));
  const data = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args], { cwd: dir }) : run(join(bin, tool), args, { cwd: dir });
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  let port = 0;
  const ctl = (...args: string[]) => {
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
    return pg('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', '-t', '60', ...args]);
  };
  // A port probed free can be taken before the postmaster binds it: then it starts again on another.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await ctl('start');
      break;
    } catch (error) {
      const log = existsSync(join(dir, 'log')) ? readFileSync(join(dir, 'log'), 'utf8') : '';
      if (attempt >= 5 || !/could not bind|already in use/i.test(log)) throw error;
    }
  }
  let frozen: number[] = [];
  const clusterPids = async () => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(postmaster)]);
    return [postmaster, ...stdout.split('\n').map((l) => Number(l.trim())).filter(Boolean)];
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restart: async () => void (await ctl('restart', '-m', 'fast')),
    stop: async () => void (await ctl('stop', '-m', 'fast')),
    start: async () => void (await ctl('start')),
    freeze: async () => {
      frozen = await clusterPids();
      for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    },
    thaw: async () => {
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
      frozen = [];
    },
    destroy: async () => {
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
      await ctl('stop', '-m', 'immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
