import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local webhook receiver: records every request it is sent and answers as the test scripts it.

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface Receiver {
  /** http://127.0.0.1:port (add a path per endpoint: requests are recorded with theirs). */
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** How the receiver answers the nth request (from 1) to `path`; 200 unless set. */
  answer: (path: string, n: number) => Answer;
  /** Resolves once `count` requests to `path` arrived (polls every 25 ms, fails after `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  to(path: string): ReceivedWebhook[];
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const counts = new Map<string, number>();
  const receiver = { received: [] as ReceivedWebhook[], answer: (() => ({ status: 200 })) as Receiver['answer'] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      receiver.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      const answer = receiver.answer(path, n);
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  const to = (path: string) => receiver.received.filter((r) => r.path === path);
  return Object.assign(receiver, {
    url: `http://${host}:${port}`,
    port,
    to,
    async waitFor(path: string, count: number, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (to(path).length < count) {
        if (Date.now() > deadline) throw new Error(`${to(path).length} of ${count} webhooks to ${path} arrived within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return to(path);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}
