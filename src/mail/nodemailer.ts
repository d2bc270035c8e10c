import { createRequire } from 'node:module';

/**
 * nodemailer, loaded on the first email rather than at start-up: a server that sends none (most of a
 * benchmark's, a worker between sign-ups) does not hold its code (bench/README.md, memory).
 */
let loaded: typeof import('nodemailer') | undefined;
export function nodemailer(): typeof import('nodemailer') {
  loaded ??= createRequire(import.meta.url)('nodemailer') as typeof import('nodemailer');
  return loaded;
}
