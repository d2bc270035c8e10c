import { afterAll, beforeAll } from 'vitest';
import { startAuthServer, type AuthEnv } from './accounts.js';
import { createApp, type TestApp } from './fixtures.js';
import { startServer, type TestServer } from './server.js';

// The set-up of a file with a server of its own (not the worker's shared one: its environment, such as
// per-IP rate limits, is the file's alone) and one app on it: started before the file's tests, stopped
// after them. The objects answered are filled in by the beforeAll (as useInProcess's deps are).

/** startServer(env) and an app of a new tenant on it. */
export function useServerApp(env: Record<string, string>): { server: TestServer; app: TestApp } {
  const server = {} as TestServer;
  const app = {} as TestApp;
  beforeAll(async () => {
    Object.assign(server, await startServer(env));
    Object.assign(app, await createApp(server));
  });
  afterAll(async () => {
    await server.stop?.();
  });
  return { server, app };
}

/** startAuthServer(env) (the server and its SMTP sink) and an app of a new tenant on it. */
export function useAuthServerApp(env: Record<string, string>): { env: AuthEnv; app: TestApp } {
  const auth = {} as AuthEnv;
  const app = {} as TestApp;
  beforeAll(async () => {
    Object.assign(auth, await startAuthServer(env));
    Object.assign(app, await createApp(auth.server));
  });
  afterAll(async () => {
    await auth.stop?.();
  });
  return { env: auth, app };
}
