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

const REPO = /\/(?:dist\/)?src\/store\/repos\/([a-z0-9-]+)\.(?:js|ts)$/;

/**
 * The module's source with each exported function replaced by its recorded wrapper, or undefined when the
 * file is not a repository. Function declarations are mutable bindings: reassigning one at the end of the
 * module changes what every importer sees. Also used by vitest.config.ts for src/store/repos/*.ts, which
 * vitest loads itself (in-process tests) rather than through Node's loader.
 */
function wrapRepoSource(path, source) {
  const match = REPO.exec(path.split('?')[0]);
  if (!match || match[1].endsWith('.test')) return undefined;
  const names = [...source.matchAll(/^export (?:async )?function (\w+)/gm)].map((m) => m[1]);
  const wraps = names.map((name) => `${name} = (globalThis.__gatehouseRepoCall ?? ((r, n, f) => f))(${JSON.stringify(match[1])}, ${JSON.stringify(name)}, ${name});`);
  return `${source}\n${wraps.join('\n')}\n`;
}

const dir = process.env.GATEHOUSE_REPO_CALLS_DIR;
if (dir) {
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
  if (typeof nodeModule.registerHooks === 'function') {
    nodeModule.registerHooks({
      load(url, context, nextLoad) {
        const result = nextLoad(url, context);
        if (result.format !== 'module' || result.source == null || !url.includes('/dist/src/store/repos/')) return result;
        const source = wrapRepoSource(url, String(result.source));
        return source === undefined ? result : { ...result, source };
      },
    });
  }
}

module.exports = { wrapRepoSource };
