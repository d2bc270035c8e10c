import { Writable } from 'node:stream';

// Human-readable log lines for a developer's terminal (`gatehouse serve` with a TTY on SQLite): the
// same pino records, one line each — time, level, message, request line and the remaining fields —
// and an outbox email's plain text indented below it, so a code or link is read at a glance.
// Production (PostgreSQL) and any non-terminal output keep JSON lines for log collectors.

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const COLORS: Record<number, string> = { 10: '90', 20: '90', 30: '32', 40: '33', 50: '31', 60: '35' };
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res', 'responseTime', 'text']);

function value(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v);
}

/** One pino JSON record as a terminal line (returned unchanged when it is not JSON). */
export function formatRecord(line: string, color = true): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const paint = (code: string, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const level = Number(record.level);
  const time = new Date(Number(record.time)).toISOString().slice(11, 23);
  const parts = [paint('90', time), paint(COLORS[level] ?? '0', LEVELS[level] ?? String(level)), String(record.msg ?? '')];
  const req = record.req as { method?: string; url?: string } | undefined;
  const res = record.res as { statusCode?: number } | undefined;
  if (req?.method) parts.push(paint('36', `${req.method} ${req.url}`));
  if (res?.statusCode) parts.push(paint('36', `→ ${res.statusCode}`) + (typeof record.responseTime === 'number' ? ` ${record.responseTime.toFixed(1)} ms` : ''));
  const rest = Object.entries(record).filter(([k]) => !HIDDEN.has(k));
  if (rest.length) parts.push(paint('90', rest.map(([k, v]) => `${k}=${value(v)}`).join(' ')));
  if (record.reqId) parts.push(paint('90', `[${String(record.reqId)}]`));
  let out = parts.join(' ');
  if (typeof record.text === 'string') out += '\n' + record.text.trimEnd().split('\n').map((l) => `    │ ${l}`).join('\n');
  return out;
}

/** A stream pino writes JSON lines into, printing formatted lines to `out`. */
export function prettyStream(out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line) out.write(formatRecord(line, Boolean(out.isTTY)) + '\n');
      done();
    },
  });
}

/**
 * Where `gatehouse serve` writes its log: formatted lines when stdout is a terminal and the database is
 * SQLite (a developer's machine); JSON lines (undefined: pino's default) otherwise, and always in production.
 */
export function serveLogDestination(database: { kind: 'sqlite' | 'postgres' }, stdout: { isTTY?: boolean } = process.stdout): Writable | undefined {
  return logIsPretty(database, stdout) ? prettyStream() : undefined;
}

/** Whether `gatehouse serve` writes formatted lines (else JSON lines only, its banner one of them: main.ts). */
export function logIsPretty(database: { kind: 'sqlite' | 'postgres' }, stdout: { isTTY?: boolean } = process.stdout): boolean {
  return Boolean(stdout.isTTY) && database.kind === 'sqlite';
}
