#!/usr/bin/env node
// The CLI entry: the TypeScript is built into dist/ by `npm install` (the prepare script).
//
// CommonJS (bin/package.json), so that this runs before libuv starts its thread pool: an ES module entry
// is read through the pool, which then has UV_THREADPOOL_SIZE's value of that moment for good. Password
// hashes and RS256 signatures run on that pool; its size is one thread per core, 2 to 4, unless
// UV_THREADPOOL_SIZE says otherwise (src/crypto/passwords.ts says why; docs/operations.md).
'use strict';
const { availableParallelism } = require('node:os');

if (!process.env.UV_THREADPOOL_SIZE) process.env.UV_THREADPOOL_SIZE = String(Math.min(4, Math.max(2, availableParallelism())));

import('../dist/src/cli.js').then(({ run }) => run(process.argv));
