import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { accessLine, batchedStdout, createLogger, type BatchedLines, OWN_BATCH_BYTES, requestLoggerFactory, scrubUrl, type Logger } from './logger.js';

function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const log = createLogger(level, stream);
  let children = 0;
  const child = log.child;
  log.child = function (this: Logger, bindings, options) {
    children += 1;
    return child.call(this, bindings, options);
  } as Logger['child'];
  return { log, lines, children: () => children };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('requestLoggerFactory: request.log made on first use', () => {
  it('makes no child until something is logged, then one child that binds reqId', async () => {
    const { log, lines, children } = capture();
    const request = requestLoggerFactory(log, { reqId: 'r-1' }, {});
    expect(children()).toBe(0);
    expect(request.level).toBe('info');
    expect(request.isLevelEnabled('debug')).toBe(false);
    request.warn({ code: 'x' }, 'first');
    request.error('second %s', 'line');
    request.debug('not written at info');
    await flush();
    expect(children()).toBe(1);
    expect(lines.map((l) => [l.reqId, l.level, l.msg, l.code])).toEqual([
      ['r-1', 40, 'first', 'x'],
      ['r-1', 50, 'second line', undefined],
    ]);
  });

  it('keeps the redaction of the process logger, and its children bind both', async () => {
    const { log, lines } = capture();
    const request = requestLoggerFactory(log, { reqId: 'r-2' }, {});
    request.child({ step: 'mail' }).info({ user: { password: 'hunter2' } }, 'nested');
    await flush();
    expect(lines[0]).toMatchObject({ reqId: 'r-2', step: 'mail', msg: 'nested', user: { password: '[redacted]' } });
  });

  it('a route-level log level given by Fastify applies', async () => {
    const { log, lines } = capture('info');
    const request = requestLoggerFactory(log, { reqId: 'r-3' }, { level: 'debug' });
    expect(request.level).toBe('debug');
    request.debug('now written');
    await flush();
    expect(lines.map((l) => l.msg)).toEqual(['now written']);
  });
});

describe('accessLine: the access line built directly', () => {
  it('is the line pino writes for the same request through the serializers, field for field', async () => {
    const { log, lines } = capture();
    const requests = [
      { id: 'r-9', method: 'POST', url: '/v1/auth/links/consume?token=abc&x="1"', hostname: 'h.example', ip: '10.0.0.1' },
      { id: 'r-10', method: 'GET', url: '/v1/health', hostname: undefined, ip: '::1' },
      { id: 'r-12', method: 'GET', url: '/v1/x?q=a\\b\u00e9\u0001\u2028', hostname: 'h"x', ip: '10.0.0.2' },
    ];
    for (const request of requests) {
      // The time is written to the microsecond.
      accessLine(log)(request, 201, 1.2345678);
      log.info({ reqId: request.id, req: request, res: { statusCode: 201 }, responseTime: 1.235 }, 'request completed');
    }
    await flush();
    const withoutTime = ({ time, ...rest }: Record<string, unknown>) => (expect(time).toBeTypeOf('number'), rest);
    expect(withoutTime(lines[0]!)).toEqual(withoutTime(lines[1]!));
    expect(withoutTime(lines[2]!)).toEqual(withoutTime(lines[3]!));
    expect(withoutTime(lines[4]!)).toEqual(withoutTime(lines[5]!));
    expect(lines[4]!.req).toMatchObject({ url: '/v1/x?q=a\\b\u00e9\u0001\u2028', host: 'h"x' });
    expect(lines[0]).toMatchObject({ level: 30, reqId: 'r-9', req: { url: '/v1/auth/links/consume?token=[redacted]&x="1"' }, res: { statusCode: 201 } });
    expect(lines[2]!.req).toEqual({ method: 'GET', url: '/v1/health', ip: '::1' });
  });

  it('keeps each request its own method, host, address and status when one writer logs many', async () => {
    const { log, lines } = capture();
    const access = accessLine(log);
    const requests = [
      { id: 'a', method: 'GET', url: '/1', host: 'one.example:8080', hostname: 'one.example', ip: '10.0.0.1', status: 200 },
      { id: 'b', method: 'GET', url: '/2', host: 'one.example:8080', hostname: 'one.example', ip: '10.0.0.1', status: 200 },
      { id: 'c', method: 'POST', url: '/3', host: 'two.example', hostname: 'two.example', ip: '::1', status: 404 },
      { id: 'd', method: 'GET', url: '/4', host: 'one.example:8080', hostname: 'one.example', ip: undefined, status: 200 },
      { id: 'e', method: 'DELETE', url: '/5', host: '"q"', hostname: '"q"', ip: '10.0.0.1', status: 503 },
      { id: 'f', method: 'GET', url: '/6', host: '', hostname: '', ip: '10.0.0.1', status: 200 },
    ];
    for (const { status, ...request } of requests) access(request, status, 0.5);
    await flush();
    expect(lines.map((line) => [line.reqId, line.req, (line.res as { statusCode: number }).statusCode])).toEqual(
      requests.map(({ id, method, url, hostname, ip, status }) => [id, ip === undefined ? { method, url, host: hostname } : { method, url, host: hostname, ip }, status]),
    );
  });

  it('writes nothing when info is off', async () => {
    const { log, lines } = capture('warn');
    accessLine(log)({ id: 'r-11', method: 'GET', url: '/', ip: '::1' }, 200, 1);
    await flush();
    expect(lines).toEqual([]);
  });
});

describe('scrubUrl', () => {
  it('redacts the value of every secret-carrying parameter, however its name is written', () => {
    const scrubbed: Record<string, string> = {
      '/v1/health': '/v1/health',
      '/v1/x?token=abc&keep=1&code=123456': '/v1/x?token=[redacted]&keep=1&code=[redacted]',
      '/v1/x?%74oken=abc&Refresh_Token=rt_1&st%61te=s&x=%74oken': '/v1/x?%74oken=[redacted]&Refresh_Token=[redacted]&st%61te=[redacted]&x=%74oken',
      '/v1/x?__sso_token=t&publishable_key=pk_1&tokens=keep': '/v1/x?__sso_token=[redacted]&publishable_key=[redacted]&tokens=keep',
      '/v1/x?token=a#frag': '/v1/x?token=[redacted]#frag',
      '/v1/x?%E0%A4%A=1&token=z&&=&token': '/v1/x?%E0%A4%A=1&token=[redacted]&&=&token',
    };
    for (const [url, expected] of Object.entries(scrubbed)) expect(scrubUrl(url), url).toBe(expected);
  });
});

/** A batchedStdout on a file of its own: the sizes of its writes and the file's text, then closed and removed. */
function withLogFile(test: (stream: BatchedLines, writes: number[], read: () => string) => void, batchBytes?: number): void {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-log-'));
  const stream = batchedStdout(openSync(join(dir, 'out.log'), 'a'), batchBytes);
  try {
    const writes: number[] = [];
    stream.on('write', (bytes: number) => writes.push(bytes));
    test(stream, writes, () => readFileSync(join(dir, 'out.log'), 'utf8'));
  } finally {
    stream.destroy(); // closes the file
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('batchedStdout: the process log destination', () => {
  it('writes as lines come, in whole-line batches of at most 4096 bytes: however fast they come, at most one batch waits', () => {
    withLogFile((stream, writes, read) => {
      // A loaded server logs many lines per turn of the event loop; none of them may wait for a later turn.
      const line = (i: number) => `${JSON.stringify({ level: 30, n: i, msg: 'request completed', pad: 'x'.repeat(60) })}\n`;
      let total = 0;
      for (let i = 0; i < 10_000; i++) {
        stream.write(line(i));
        total += line(i).length;
      }
      const written = read();
      const waiting = total - written.length;
      expect(waiting).toBeGreaterThanOrEqual(0);
      expect(waiting).toBeLessThanOrEqual(4096);
      expect(written.endsWith('\n')).toBe(true);
      expect(Math.max(...writes)).toBeLessThanOrEqual(4096);
      stream.flushSync();
      const lines = read().split('\n').filter(Boolean);
      expect(lines.map((text) => JSON.parse(text).n)).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
    });
  });
  it('writes batches of up to 64 KiB when the process writes alone, whole lines in order', () => {
    withLogFile((stream, writes, read) => {
      const line = (i: number) => `${JSON.stringify({ level: 30, n: i, msg: 'request completed', pad: 'x'.repeat(160) })}\n`;
      for (let i = 0; i < 2_000; i++) stream.write(line(i));
      stream.flushSync();
      const text = read();
      expect(text.split('\n').filter(Boolean).map((l) => JSON.parse(l).n)).toEqual(Array.from({ length: 2_000 }, (_, i) => i));
      expect(Math.max(...writes)).toBeLessThanOrEqual(OWN_BATCH_BYTES);
      // About 400 KB in batches of nearly 64 KiB, not a hundred PIPE_BUF-sized writes.
      expect(writes.length).toBeLessThanOrEqual(Math.ceil(Buffer.byteLength(text) / (OWN_BATCH_BYTES - 400)));
      expect(writes.reduce((a, b) => a + b, 0)).toBe(Buffer.byteLength(text));
    }, OWN_BATCH_BYTES);
  });
  it('lines written while a batch goes out (a listener that logs) are written once each, whole', () => {
    withLogFile((stream, _writes, read) => {
      const line = (i: number) => `${JSON.stringify({ n: i, pad: 'x'.repeat(200) })}\n`;
      let echoes = 0;
      stream.on('write', () => {
        // Enough to fill batches from inside the event: nested flushes.
        for (let k = 0; k < 30 && echoes < 300; k++) stream.write(line(10_000 + echoes++));
      });
      for (let i = 0; i < 200; i++) stream.write(line(i));
      stream.flushSync();
      stream.flushSync();
      const seen = read().split('\n').filter(Boolean).map((l) => JSON.parse(l).n as number);
      expect(seen.filter((n) => n < 10_000)).toEqual(Array.from({ length: 200 }, (_, i) => i));
      // Each once and whole (a line logged during a flush may go out before the line that caused it).
      expect(seen.filter((n) => n >= 10_000).sort((a, b) => a - b)).toEqual(Array.from({ length: echoes }, (_, i) => 10_000 + i));
      expect(echoes).toBe(300);
    });
  });
  it('counts bytes, not characters: lines of multi-byte characters still go out in writes of at most 4096 bytes, whole and in order', () => {
    withLogFile((stream, writes, read) => {
      // 3 bytes per character in UTF-8: a batch of 4000 characters would be 12,000 bytes.
      const line = (i: number) => `${JSON.stringify({ n: i, msg: 'ログ'.repeat(100 + (i % 7)) })}\n`;
      for (let i = 0; i < 500; i++) stream.write(line(i));
      const long = `${JSON.stringify({ n: 500, msg: 'x'.repeat(10_000) })}\n`;
      stream.write(long);
      stream.write(line(501));
      stream.flushSync();
      const text = read();
      expect(text.split('\n').filter(Boolean).map((l) => JSON.parse(l).n)).toEqual(Array.from({ length: 502 }, (_, i) => i));
      // Every write but the one that carried the over-long line fits PIPE_BUF.
      expect(writes.filter((bytes) => bytes > 4096)).toEqual([Buffer.byteLength(long)]);
      expect(writes.reduce((a, b) => a + b, 0)).toBe(Buffer.byteLength(text));
    });
  });
});
