import { hash, verify, Algorithm } from '@node-rs/argon2';
const P = { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1, outputLen: 32 };
const h = await hash('correct horse battery', P);
const conc = Number(process.argv[2] || 3), secs = Number(process.argv[3] || 4);
let n = 0; const end = Date.now() + secs * 1000;
const t0 = process.cpuUsage();
async function worker() { while (Date.now() < end) { await verify(h, 'correct horse battery'); n++; } }
await Promise.all(Array.from({ length: conc }, worker));
const cpu = process.cpuUsage(t0);
const rss = () => { const s = require('fs').readFileSync('/proc/self/status', 'utf8'); return s.match(/VmRSS:\s+(\d+)/)[1] / 1024; };
import fs from 'node:fs';
const st = () => fs.readFileSync('/proc/self/status', 'utf8');
const mb = (k) => (Number(st().match(new RegExp(k + ':\\s+(\\d+)'))[1]) / 1024).toFixed(1);
const busy = mb('VmRSS');
await new Promise((r) => setTimeout(r, 1500));
console.log(`${process.env.LABEL} conc=${conc} ${(n / secs).toFixed(1)}/s cpu/hash=${((cpu.user + cpu.system) / n / 1000).toFixed(2)}ms sys/hash=${(cpu.system / n / 1000).toFixed(2)}ms rss_end=${busy} rss_after1.5s=${mb('VmRSS')} hwm=${mb('VmHWM')}`);
