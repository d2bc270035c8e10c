import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { queryDatabase } from './db.js';
import { cleanEnv, type TestServer } from './server.js';

// At-rest checks of an app's deletion: every table of the database that has an app, user, bucket, table or
// session column, whatever migrations made it (a table added later is checked too, without this file knowing).

const APP_COLUMNS = ['app_id', 'source_app_id'];

/** Every (table, column) of the database whose column name is one of `names`. */
async function columnsNamed(databaseUrl: string, names: string[]): Promise<{ table: string; column: string }[]> {
  const list = names.map((n) => `'${n}'`).join(', ');
  if (databaseUrl.startsWith('sqlite:')) {
    const tables = await queryDatabase(databaseUrl, "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'");
    const found: { table: string; column: string }[] = [];
    for (const { name } of tables) {
      const cols = await queryDatabase(databaseUrl, `select name from pragma_table_info('${name as string}') where name in (${list})`);
      for (const c of cols) found.push({ table: name as string, column: c.name as string });
    }
    return found;
  }
  const rows = await queryDatabase(databaseUrl, `select table_name, column_name from information_schema.columns where table_schema = 'public' and column_name in (${list})`);
  return rows.map((r) => ({ table: r.table_name as string, column: r.column_name as string }));
}

const quoted = (values: string[]) => values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ');

/**
 * Rows anywhere that still belong to the app: by an app column, or by the ids of its users, buckets,
 * custom tables or sessions recorded before the deletion. Answers `table.column: n` for each non-zero count.
 */
export async function rowsLeftOf(server: Pick<TestServer, 'databaseUrl'>, appId: string, ids: { users?: string[]; buckets?: string[]; tables?: string[] } = {}): Promise<string[]> {
  const byColumn: Record<string, string[]> = { user_id: ids.users ?? [], owner: ids.users ?? [], bucket_id: ids.buckets ?? [], table_id: ids.tables ?? [] };
  for (const column of APP_COLUMNS) byColumn[column] = [appId];
  const left: string[] = [];
  for (const { table, column } of await columnsNamed(server.databaseUrl, Object.keys(byColumn))) {
    const values = byColumn[column]!;
    if (values.length === 0) continue;
    // A data table dropped by a purge running meanwhile has no rows left, as far as this is concerned.
    const [row] = await queryDatabase(server.databaseUrl, `select count(*) as n from ${table} where ${column} in (${quoted(values)})`).catch(() => [{ n: 0 }]);
    if (Number(row!.n) > 0) left.push(`${table}.${column}: ${row!.n}`);
  }
  const [app] = await queryDatabase(server.databaseUrl, `select count(*) as n from applications where id = '${appId}'`);
  if (Number(app!.n) > 0) left.push('applications.id: 1');
  return left;
}

/** The data tables (`t_<id>`) of these custom table ids that still exist. */
export async function dataTablesLeft(server: Pick<TestServer, 'databaseUrl'>, tableIds: string[]): Promise<string[]> {
  if (tableIds.length === 0) return [];
  const names = tableIds.map((id) => `t_${id.replace(/-/g, '')}`);
  const rows = server.databaseUrl.startsWith('sqlite:')
    ? await queryDatabase(server.databaseUrl, "select name from sqlite_master where type = 'table' and name like 't\\_%' escape '\\'")
    : await queryDatabase(server.databaseUrl, "select table_name as name from information_schema.tables where table_schema = 'public' and table_name like 't\\_%'");
  return rows.map((r) => r.name as string).filter((name) => names.some((n) => name.toLowerCase() === n.toLowerCase()) || tableIds.some((id) => name.includes(id)));
}

/** A running CLI command with its stderr lines as they come, for killing it midway. */
export interface RunningCli {
  child: ChildProcess;
  /** Resolves once stderr has `count` lines. */
  lines(count: number, timeoutMs?: number): Promise<string[]>;
  exited: Promise<number | null>;
}

export function spawnCli(server: TestServer, args: string[], extraEnv: Record<string, string> = {}): RunningCli {
  const bin = join(resolve(import.meta.dirname, '../..'), 'bin/gatehouse.js');
  const child = spawn(process.execPath, [bin, ...args], { cwd: server.dir, env: { ...cleanEnv(), ...server.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  child.stdout!.resume();
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    exited,
    async lines(count, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const lines = stderr.split('\n').filter(Boolean);
        if (lines.length >= count) return lines;
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the command ended or stalled before ${count} lines:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}
