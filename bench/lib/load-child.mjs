// One autocannon run in a process of its own (bench/lib/load.mjs starts it). Reads one JSON object on
// stdin and writes one JSON line on stdout:
//   in:  { url, connections, duration, method, path, headers?, body?,
//          bodies?: string[]      each request takes the next of these as its body (refresh tokens are
//                                 single-use); when they run out, `exhaustedBody`, counted in `exhausted`
//          exhaustedBody?: string,
//          paths?: string[],      each request takes the next of these as its path, round and round
//          collect?: string }     from each 200 answer, the JSON field of this name goes into `collected`
//   out: { result (autocannon's), cpu (µs of this process's CPU during the run), collected, taken (bodies used),
//          exhausted }
import autocannon from 'autocannon';

let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
const { url, connections, duration, method, path, headers, body, bodies, exhaustedBody, collect, paths } = JSON.parse(input);

const collected = [];
let exhausted = 0;
let next = 0;
const request = { method, path, headers, body };
if (bodies) {
  request.setupRequest = (req) => {
    let chosen = bodies[next++];
    if (chosen === undefined) {
      exhausted += 1;
      chosen = exhaustedBody;
    }
    return { ...req, body: chosen };
  };
}
if (paths) {
  let nextPath = 0;
  const setup = request.setupRequest ?? ((req) => req);
  request.setupRequest = (req) => ({ ...setup(req), path: paths[nextPath++ % paths.length] });
}
if (collect) {
  request.onResponse = (status, text) => {
    if (status === 200) collected.push(JSON.parse(text)[collect]);
  };
}

const before = process.cpuUsage();
const result = await autocannon({ url, connections, duration, requests: [request] });
const used = process.cpuUsage(before);
process.stdout.write(`${JSON.stringify({ result, cpu: used.user + used.system, collected, taken: bodies ? Math.min(next, bodies.length) : 0, exhausted })}\n`);
