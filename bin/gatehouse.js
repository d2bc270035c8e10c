#!/usr/bin/env node
// The CLI entry: the TypeScript is built into dist/ by `npm install` (the prepare script).
import { run } from '../dist/src/cli.js';

await run(process.argv);
