#!/usr/bin/env node
// The CLI entry: the TypeScript is built into dist/ by `npm install` (the prepare script).
//
// CommonJS (bin/package.json), so that this runs before libuv starts its thread pool: an ES module entry
// is read through the pool, which then has UV_THREADPOOL_SIZE's value of that moment for good. Password
// hashes and RS256 signatures run on that pool; its size is one thread per core, 2 to 4, unless
// UV_THREADPOOL_SIZE says otherwise (src/crypto/passwords.ts says why; docs/operations.md). With
// `--workers N` the primary shares the cores out among the workers (src/runtime/cluster.ts).
'use strict';
const { availableParallelism } = require('node:os');

// A module that node's --import or --loader names is read through the pool before this file runs: the
// pool has started at libuv's 4 threads, and a size set now would only be reported, not used. Flags are
// matched as src/runtime/node-flags.ts's namesNodeFlag matches them (node takes `_` for `-`), which this file
// cannot import: it runs before any ES module may load.
const preloading = (flags) => flags.some((flag) => /^--(import|loader|experimental[-_]loader)(=|$)/.test(flag));
const poolStarted = preloading(process.execArgv) || preloading((process.env.NODE_OPTIONS ?? '').split(/\s+/));
if (!process.env.UV_THREADPOOL_SIZE && !poolStarted) {
  process.env.UV_THREADPOOL_SIZE = String(Math.min(4, Math.max(2, availableParallelism())));
  process.env.GATEHOUSE_DEFAULT_THREAD_POOL = '1';
}

// Node 22.1 and later keep each module's compiled code on disk (in the system's temporary directory) and
// reuse it at the next start: a command or a server starts on less CPU. Node 20 has no such cache.
require('node:module').enableCompileCache?.();

import('../dist/src/cli/index.js')
  // run() returns the exit code; a command that sets none leaves process.exitCode as it was (serve's shutdown).
  .then(({ run }) => run(process.argv))
  .then((code) => {
    if (code !== 0) process.exitCode = code;
  })
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
