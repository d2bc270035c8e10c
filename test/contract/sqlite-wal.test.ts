import { existsSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/db.js';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { asSecret, call, makeTable } from '../helpers/tables.js';

// docs/operations.md, "The write-ahead log has one cap" (issue 45, finding 7): on SQLite the log of every app's writes
// stays under SQLITE_WAL_LIMIT_MB through a write burst, and shrinks after it. Measured on the file itself.
const LIMIT_MB = 8;

describe.skipIf(TEST_DB !== 'sqlite')('SQLite: the write-ahead log has one cap', () => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startServer({ RATE_LIMITS: 'off', SQLITE_WAL_LIMIT_MB: String(LIMIT_MB) });
    app = await createApp(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('a burst of 400 empty rows of a 100-column table (each about 100 index pages of log): the log never passes the cap, and shrinks after', async () => {
    const wal = `${server.databaseUrl.slice('sqlite:'.length)}-wal`;
    const walBytes = () => (existsSync(wal) ? statSync(wal).size : 0);
    const secret = asSecret(app);
    const columns = Array.from({ length: 100 }, (_, i) => ({ name: `c${i}`, type: i % 2 ? 'int' : 'text' }));
    const table = await makeTable(server, secret, columns);
    let largest = 0;
    const sampler = setInterval(() => (largest = Math.max(largest, walBytes())), 5);
    try {
      for (let i = 0; i < 400; i += 8) {
        const batch = Array.from({ length: 8 }, () => call(server, secret, 'POST', `/v1/tables/${table.table_id}/rows`, { data: {} }));
        for (const res of await Promise.all(batch)) expect(res.status, JSON.stringify(res.body)).toBe(201);
        largest = Math.max(largest, walBytes());
      }
    } finally {
      clearInterval(sampler);
    }
    console.log(`largest write-ahead log during the burst: ${(largest / 2 ** 20).toFixed(1)} MiB (cap ${LIMIT_MB} MiB)`);
    expect(largest).toBeGreaterThan(0);
    expect(largest).toBeLessThanOrEqual(LIMIT_MB * 2 ** 20);
    // Once the burst is over the checkpoint thread truncates it (it checks every 200 ms).
    await expect.poll(walBytes, { timeout: 5_000, interval: 50 }).toBeLessThanOrEqual((LIMIT_MB / 4) * 2 ** 20);
  }, 120_000);
});
