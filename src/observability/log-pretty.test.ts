import { describe, expect, it } from 'vitest';
import { formatRecord, serveLogDestination } from './log-pretty.js';

describe('human-readable log lines for a terminal', () => {
  it('a request line shows time, level, method, url, status and request id', () => {
    const line = formatRecord(
      JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 1, 10, 0, 0), reqId: 'r-1', res: { statusCode: 200 }, responseTime: 3.21, msg: 'request completed' }),
      false,
    );
    expect(line).toBe('10:00:00.000 INFO  request completed → 200 3.2 ms [r-1]');
  });

  it("an outbox email's plain text is printed under its line, so the code is read at a glance", () => {
    const line = formatRecord(JSON.stringify({ level: 30, time: 0, to: 'ada@example.com', text: 'Your code is:\n\n123456\n', msg: 'email written to the outbox' }), false);
    expect(line).toContain('email written to the outbox to=ada@example.com');
    expect(line).toContain('    │ 123456');
  });

  it('a line that is not JSON passes unchanged', () => {
    expect(formatRecord('plain text', false)).toBe('plain text');
  });
});

describe('gatehouse serve: which log lines', () => {
  it('human-readable only on a terminal and on SQLite; JSON (no stream: pino\'s own) when piped or on PostgreSQL', () => {
    expect(serveLogDestination({ kind: 'sqlite' }, { isTTY: true })).toBeDefined();
    expect(serveLogDestination({ kind: 'sqlite' }, { isTTY: false })).toBeUndefined();
    expect(serveLogDestination({ kind: 'sqlite' }, {})).toBeUndefined();
    expect(serveLogDestination({ kind: 'postgres' }, { isTTY: true })).toBeUndefined();
  });
});
