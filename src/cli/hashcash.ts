import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseChallengeAnswer, solveChallenge } from '../crypto/hashcash-solve.js';
import { pathOf, type Cli } from './io.js';

async function readAll(cli: Cli, source: string): Promise<string> {
  if (source !== '-') return readFile(pathOf(cli, source), 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of cli.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * `gatehouse hashcash solve --challenge-json -|FILE`: the proof-of-work a sign-up needs, for curl users and
 * scripts. Reads the `POST /v1/challenges` answer, prints `{"challenge","nonce"}` (the sign-up's `hashcash`
 * object) on stdout and the solve time on stderr. Needs no server configuration or database.
 */
export function registerHashcashCommands(program: Command, cli: Cli): void {
  const hashcash = program.command('hashcash').description('proof-of-work helpers');
  hashcash
    .command('solve')
    .description('solve a challenge: prints the {"challenge","nonce"} object a sign-up sends as "hashcash"')
    .requiredOption('--challenge-json <file>', 'the POST /v1/challenges answer: a file, or - for stdin')
    .action(async (flags: { challengeJson: string }) => {
      let answer;
      try {
        answer = parseChallengeAnswer(JSON.parse(await readAll(cli, flags.challengeJson)));
      } catch (error) {
        cli.stderr.write(`gatehouse: --challenge-json: ${(error as Error).message}\n`);
        cli.exitCode = 2;
        return;
      }
      const started = performance.now();
      const { nonce, hashes } = await solveChallenge(answer);
      const seconds = ((performance.now() - started) / 1000).toFixed(2);
      cli.stderr.write(`solved in ${seconds} s (${hashes} hashes, difficulty ${answer.difficulty})\n`);
      cli.stdout.write(JSON.stringify({ challenge: answer.challenge, nonce }) + '\n');
    });
}
