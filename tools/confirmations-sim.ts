// A runnable simulator of the donation-confirmation provider of docs/bots.md, for development
// and tests. In memory, node:http only. Provider routes:
//   POST /challenges {chain, usd_amount}      → 201 challenge (status PENDING)
//   GET  /challenges/{id}                     → 200 challenge (PENDING | CONFIRMED | EXPIRED), 404 unknown
// Control routes (what a real chain would do, on demand):
//   POST /challenges/{id}/confirm             → 200 challenge, now CONFIRMED (the donation "arrived")
//   POST /challenges/{id}/expire              → 200 challenge, now EXPIRED
//   POST /_sim/fail {mode: none|error|hang}   → provider routes answer 500, or never answer
// Run: `npm run confirmations-sim -- --port 8090` (or CONFIRMATIONS_SIM_PORT); it prints its URL.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export type ChallengeStatus = 'PENDING' | 'CONFIRMED' | 'EXPIRED';
export type FailMode = 'none' | 'error' | 'hang';

export interface SimChallenge {
  challenge_id: string;
  chain: string;
  usd_amount: number;
  address: string;
  amount: string;
  status: ChallengeStatus;
  expires_at: string;
}

export interface ConfirmationsSim {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export interface SimOptions {
  port?: number;
  host?: string;
  /** How long a challenge stays PENDING before it expires by itself (default 30 minutes). */
  ttlSeconds?: number;
}

/** Made-up USD prices, only so `amount` looks like something a wallet would send. */
const USD_PRICE: Record<string, number> = { btc: 60_000, eth: 3_000, sol: 150, ltc: 80, usdc: 1, usdt: 1 };

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new HttpError(413, 'body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'body must be a JSON object');
  return body as Record<string, unknown>;
}

function newAddress(chain: string): string {
  if (['eth', 'ethereum', 'usdc', 'usdt', 'polygon', 'base'].includes(chain)) return `0x${randomBytes(20).toString('hex')}`;
  return `sim1${randomBytes(20).toString('hex')}`;
}

function cryptoAmount(chain: string, usd: number): string {
  const price = USD_PRICE[chain] ?? 1;
  return (usd / price).toFixed(8).replace(/0+$/, '').replace(/\.$/, '');
}

/** Starts the simulator; resolves once it listens. Port 0 (the default) picks a free port. */
export async function startConfirmationsSim(options: SimOptions = {}): Promise<ConfirmationsSim> {
  const host = options.host ?? '127.0.0.1';
  const ttlMs = (options.ttlSeconds ?? 30 * 60) * 1000;
  const challenges = new Map<string, SimChallenge>();
  let failMode: FailMode = 'none';

  // A PENDING challenge past its expiry reads as EXPIRED, the way a real provider would report it.
  const current = (id: string): SimChallenge => {
    const challenge = challenges.get(id);
    if (!challenge) throw new HttpError(404, 'challenge not found');
    if (challenge.status === 'PENDING' && Date.parse(challenge.expires_at) <= Date.now()) challenge.status = 'EXPIRED';
    return challenge;
  };

  async function create(req: IncomingMessage): Promise<SimChallenge> {
    const body = await readJson(req);
    const { chain, usd_amount: usd } = body;
    if (typeof chain !== 'string' || !/^[a-z0-9_-]{1,32}$/i.test(chain)) throw new HttpError(400, 'chain must be a short name such as "btc" or "eth"');
    if (typeof usd !== 'number' || !Number.isFinite(usd) || usd <= 0 || usd > 1_000_000) {
      throw new HttpError(400, 'usd_amount must be a positive number');
    }
    const lower = chain.toLowerCase();
    const challenge: SimChallenge = {
      challenge_id: randomUUID(),
      chain: lower,
      usd_amount: usd,
      address: newAddress(lower),
      amount: cryptoAmount(lower, usd),
      status: 'PENDING',
      expires_at: new Date(Date.now() + ttlMs).toISOString(),
    };
    challenges.set(challenge.challenge_id, challenge);
    return challenge;
  }

  function transition(id: string, to: 'CONFIRMED' | 'EXPIRED'): SimChallenge {
    const challenge = current(id);
    if (challenge.status !== 'PENDING' && challenge.status !== to) {
      throw new HttpError(409, `challenge is ${challenge.status}`);
    }
    challenge.status = to;
    return challenge;
  }

  async function setFailMode(req: IncomingMessage): Promise<{ mode: FailMode }> {
    const { mode } = await readJson(req);
    if (mode !== 'none' && mode !== 'error' && mode !== 'hang') throw new HttpError(400, 'mode must be none, error or hang');
    failMode = mode;
    return { mode };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://sim').pathname;
    let parts: string[];
    try {
      parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      throw new HttpError(400, 'malformed path');
    }
    const method = req.method ?? 'GET';

    if (method === 'POST' && path === '/_sim/fail') return send(res, 200, await setFailMode(req));
    if (method === 'POST' && parts.length === 3 && parts[0] === 'challenges' && parts[2] === 'confirm') {
      return send(res, 200, transition(parts[1], 'CONFIRMED'));
    }
    if (method === 'POST' && parts.length === 3 && parts[0] === 'challenges' && parts[2] === 'expire') {
      return send(res, 200, transition(parts[1], 'EXPIRED'));
    }

    const providerRoute =
      (method === 'POST' && path === '/challenges') || (method === 'GET' && parts.length === 2 && parts[0] === 'challenges');
    if (!providerRoute) throw new HttpError(404, `no route ${method} ${path}`);
    if (failMode === 'hang') return; // never answer: the client's timeout has to fire
    if (failMode === 'error') return send(res, 500, { detail: 'simulated provider failure' });
    if (method === 'POST') return send(res, 201, await create(req));
    return send(res, 200, current(parts[1]));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) send(res, error.status, { detail: error.message });
      else send(res, 500, { detail: 'internal error' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        // Hung requests would keep close() waiting forever.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

async function main(): Promise<void> {
  const rawPort = argument('port') ?? process.env.CONFIRMATIONS_SIM_PORT ?? '8090';
  if (!/^\d+$/.test(rawPort) || Number(rawPort) > 65535) {
    console.error(`confirmations-sim: --port must be a port number, got "${rawPort}"`);
    process.exit(2);
  }
  const host = argument('host') ?? process.env.CONFIRMATIONS_SIM_HOST ?? '127.0.0.1';
  const sim = await startConfirmationsSim({ port: Number(rawPort), host });
  console.log(`confirmations simulator listening on ${sim.url}`);
  console.log(`set CONFIRMATIONS_URL=${sim.url} for gatehouse serve`);
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(`confirmations-sim: ${(error as Error).message}`);
    process.exit(1);
  });
}
