// How a run drives the load: every autocannon run, ceilings and scenarios alike, in a fresh process of
// its own (bench/lib/load-child.mjs), so that no run's load generator carries the state of the runs
// before it. With every run in the bench process, /v1/health measured after the two Fastify ceilings ran
// at 38-43k req/s with the load generator spending 18-21 µs a request, and at 50-52k (13.4-13.7 µs) with
// no autocannon run before it in that process (bench/README.md, "How a run drives the load").
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './server.mjs';

/**
 * Runs one load (see load-child.mjs for `spec`) and resolves with autocannon's result, the load
 * generator's CPU during the run (µs), the collected fields and the count of requests that found no body.
 */
export function runLoad(spec) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench/lib/load-child.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    // The spec can be megabytes (refresh tokens): a child that dies before reading it fails the run.
    child.stdin.on('error', reject);
    // 'close', not 'exit': the child's whole output has been read by then.
    child.once('close', (code, signal) => {
      if (code !== 0) return reject(new Error(`the load process exited with ${code ?? signal}`));
      try {
        resolveRun(JSON.parse(output));
      } catch (error) {
        reject(error);
      }
    });
    child.stdin.end(JSON.stringify(spec));
  });
}
