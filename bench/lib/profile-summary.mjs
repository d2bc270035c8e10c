#!/usr/bin/env node
// Summarizes V8 CPU profiles (from `npm run bench -- --cpu-prof DIR`): self time by function and by
// package, as shares of all samples, so "where the server's time goes" can be read in a table.
//
//   node bench/lib/profile-summary.mjs DIR/*.cpuprofile [--top 25]
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
const files = args.filter((a, i) => a.endsWith('.cpuprofile') && i !== topAt + 1);
if (!files.length) {
  console.error('usage: node bench/lib/profile-summary.mjs FILE.cpuprofile... [--top N]');
  process.exit(2);
}

const byFunction = new Map();
const byPackage = new Map();
let total = 0;
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);

function packageOf(url, name) {
  if (!url) return name.startsWith('(') ? name : '(native/builtin)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  if (url.includes('/dist/src/')) return 'gatehouse: ' + url.split('/dist/src/')[1].split('/').slice(0, -1).join('/');
  return url;
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const node = nodes.get(profile.samples[i]);
    const us = deltas[i] ?? 0;
    total += us;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/')}:${lineNumber + 1}` : '';
    add(byFunction, `${functionName || '(anonymous)'} ${where}`.trim(), us);
    add(byPackage, packageOf(url, functionName), us);
  }
}

const table = (title, map) => {
  console.log(`\n| ${title} | self time | share |\n| --- | --- | --- |`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`| ${key.replace(/\|/g, '\\|')} | ${(us / 1000).toFixed(0)} ms | ${((100 * us) / total).toFixed(1)}% |`);
  }
};
console.log(`${files.length} profile(s), ${(total / 1e6).toFixed(1)} s sampled`);
table('package / area', byPackage);
table('function', byFunction);
