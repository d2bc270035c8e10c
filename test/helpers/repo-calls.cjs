// A test-only preload (NODE_OPTIONS=--require, set by test/run.mjs on the PostgreSQL pass when
// GATEHOUSE_REPO_CALLS_DIR names a directory): every exported function of the built repositories
// (dist/src/store/repos/*.js) is wrapped as its module loads, and the first call of each in a process is
// appended to <dir>/calls-<pid>.txt as "file:function". test/run.mjs then fails the pass when a repository
// function was never called: so every SQL statement the service can issue ran on PostgreSQL.
// CommonJS and in-thread hooks (module.registerHooks, Node >= 22.15): nothing here goes through libuv's
// thread pool, which bin/gatehouse.js sizes before it starts.
'use strict';
const { appendFileSync } = require('node:fs');
const { join } = require('node:path');
const nodeModule = require('node:module');

const dir = process.env.GATEHOUSE_REPO_CALLS_DIR;
if (dir && typeof nodeModule.registerHooks === 'function') {
  const seen = new Set();
  const file = join(dir, `calls-${process.pid}.txt`);
  globalThis.__gatehouseRepoCall = (repo, name, fn) => {
    const key = `${repo}:${name}`;
    return function recorded(...args) {
      if (!seen.has(key)) {
        seen.add(key);
        appendFileSync(file, `${key}\n`);
      }
      return fn.apply(this, args);
    };
  };
  const REPO = /\/dist\/src\/store\/repos\/([a-z0-9-]+)\.js$/;
  nodeModule.registerHooks({
    load(url, context, nextLoad) {
      const result = nextLoad(url, context);
      const match = REPO.exec(url);
      if (!match || result.format !== 'module' || result.source == null) return result;
      const source = String(result.source);
      const names = [...source.matchAll(/^export (?:async )?function (\w+)/gm)].map((m) => m[1]);
      // Function declarations are mutable bindings: reassigning one here changes what every importer sees.
      const wraps = names.map((name) => `${name} = globalThis.__gatehouseRepoCall(${JSON.stringify(match[1])}, ${JSON.stringify(name)}, ${name});`);
      return { ...result, source: `${source}\n${wraps.join('\n')}\n` };
    },
  });
}
