// Ceilings measured in the same run as the scenarios: a bare Fastify server (and the same plus one
// RS256 verify per request) driven exactly like the Gatehouse server, and in-process jose sign/verify
// rates with a fixed number of operations in flight. The README reads each scenario against one.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { cpuOf, freePort, ROOT, rssOf } from './server.mjs';

/**
 * Spawns `node bench/lib/<script> <port> ...args` and resolves once it prints `listening`: its URL, its
 * RSS and a stop that waits for it to exit (SIGKILL after 3 s).
 */
export async function spawnListening(script, args = []) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'bench/lib', script), String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise((resolveReady, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('listening')) resolveReady();
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}): ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    rss: () => rssOf(child.pid),
    cpu: () => cpuOf(child.pid),
    stop: async () => {
      child.removeAllListeners('exit');
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Starts bench/lib/ceiling-server.mjs; resolves once it listens, with a token for its /verify. */
export async function startCeilingServer() {
  const server = await spawnListening('ceiling-server.mjs');
  const { token } = await (await fetch(`${server.url}/token`)).json();
  return { ...server, token };
}

async function rate(seconds, inFlight, op) {
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let done = 0;
  const loop = async () => {
    while (performance.now() < deadline) {
      await op();
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  return (done * 1000) / (performance.now() - started);
}

/** jose RS256 sign and verify per second in this process, `inFlight` operations at a time. */
export async function measureJose(seconds, inFlight) {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048 });
  const sign = () =>
    new SignJWT({ sid: 'bench', email: 'bench@example.com', email_verified: true })
      .setProtectedHeader({ alg: 'RS256', kid: 'bench:1', typ: 'JWT' })
      .setIssuer('https://bench.example')
      .setAudience('bench')
      .setSubject('00000000-0000-4000-8000-000000000000')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
  const token = await sign();
  const verify = () => jwtVerify(token, publicKey, { algorithms: ['RS256'], issuer: 'https://bench.example', audience: 'bench' });
  await rate(0.3, inFlight, sign); // warm-up
  await rate(0.3, inFlight, verify);
  return { inFlight, signPerSecond: await rate(seconds, inFlight, sign), verifyPerSecond: await rate(seconds, inFlight, verify) };
}
