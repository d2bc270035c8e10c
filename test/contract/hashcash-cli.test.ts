import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { sharedServer, type CliResult, type TestServer } from '../helpers/server.js';

const BIN = resolve(import.meta.dirname, '../../bin/gatehouse.js');

let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  server = await sharedServer();
  // The defaults a curl user gets: proof-of-work on, difficulty 6.
  app = await createApp(server, { args: ['--hashcash-difficulty', '6'] });
});
afterAll(async () => {
  await server?.stop();
});

/** `gatehouse hashcash solve --challenge-json -` with `input` on stdin. */
function solveFromStdin(input: string): Promise<CliResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, 'hashcash', 'solve', '--challenge-json', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => done({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}

const challenge = async () => JSON.stringify((await api(server, 'POST', '/v1/challenges', { publishableKey: app.publishable_key })).body);

describe('1 gatehouse hashcash solve: a curl user can sign up on a default app', () => {
  it('reads the POST /v1/challenges answer on stdin, prints {challenge, nonce} that a sign-up accepts, and the solve time on stderr', async () => {
    const answer = await api(server, 'POST', '/v1/challenges', { publishableKey: app.publishable_key });
    expect(answer.body.difficulty).toBe(6);
    const solved = await solveFromStdin(JSON.stringify(answer.body));
    expect(solved.code).toBe(0);
    expect(solved.stderr).toMatch(/^solved in \d+\.\d\d s \(\d+ hashes, difficulty 6\)\n$/);
    const proof = JSON.parse(solved.stdout);
    expect(Object.keys(proof).sort()).toEqual(['challenge', 'nonce']);
    expect(proof.challenge).toBe(answer.body.challenge);
    const signup = await api(server, 'POST', '/v1/signups', { publishableKey: app.publishable_key, body: { email: uniqueEmail(), hashcash: proof } });
    expect(signup.status).toBe(200);
    expect(signup.body.status).toBe('verification_sent');
  });

  it('takes a file name too', async () => {
    const file = join(server.dir, 'challenge.json');
    writeFileSync(file, await challenge());
    const solved = await server.cliProcess(['hashcash', 'solve', '--challenge-json', file]);
    expect(solved.code).toBe(0);
    expect(JSON.parse(solved.stdout)).toMatchObject({ nonce: expect.any(String) });
  });

  it('input that is not a challenge answer (an error body, not JSON) exits 2 with a message and prints nothing on stdout', async () => {
    for (const input of ['{"detail":"invalid publishable key"}', 'not json', '{"challenge":"x","difficulty":6}']) {
      const solved = await solveFromStdin(input);
      expect(solved.code, input).toBe(2);
      expect(solved.stdout).toBe('');
      expect(solved.stderr).toMatch(/--challenge-json/);
    }
  });
});

describe('4.1 POST /v1/challenges in the OpenAPI document', () => {
  it('lists the publishable-key security', async () => {
    const doc = await api(server, 'GET', '/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.paths['/v1/challenges'].post.security).toEqual([{ publishable: [] }]);
    expect(doc.body.paths['/v1/email/verify'].post).toBeDefined();
  });
});
