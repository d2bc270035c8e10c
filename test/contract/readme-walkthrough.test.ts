import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, startServer, type TestServer } from '../helpers/server.js';

// Issue 13, "the first five minutes without a browser": the README's curl walk-through, run as written
// (only the address and `npx gatehouse` are pointed at this test's server and build) against a default
// app: proof-of-work on, the code read from the dev outbox. If the README drifts from the service, this fails.

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/gatehouse.js');

function walkthrough(): string {
  const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## The first five minutes, with curl'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README: no sh block under "The first five minutes, with curl"');
  return block[1]!;
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('13 README: the first five minutes, with curl', () => {
  it('runs verbatim on a default app: challenge, solve, sign up, code from the outbox, verify, /v1/me', async () => {
    const script = walkthrough().replaceAll('http://127.0.0.1:8080', server.url).replaceAll('npx gatehouse', `node ${JSON.stringify(BIN)}`);
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
      execFile('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: server.dir, env: { ...cleanEnv(), ...server.env }, timeout: 120_000 }, (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      ),
    );
    expect(result.code, result.stderr).toBe(0);
    // The README says what each step prints: the solve time on stderr, verification_sent, then /v1/me.
    expect(result.stderr).toMatch(/solved in \d+\.\d\d s \(\d+ hashes, difficulty 6\)/);
    expect(result.stdout).toContain('"status":"verification_sent"');
    const me = JSON.parse(result.stdout.slice(result.stdout.lastIndexOf('{"user_id"')));
    expect(me).toMatchObject({ email: 'ada@example.com', email_verified: true, is_bot: false });
  }, 180_000);
});
