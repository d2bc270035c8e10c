import { createClient, GatehouseError, isGatehouseError, memoryStorage, MfaRequiredError, type ErrorCode as ClientErrorCode } from '@gatehouse/client';
import { createAdminClient, GatehouseError as ServerGatehouseError, isGatehouseError as isServerGatehouseError, type ErrorCode } from '@gatehouse/server';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, startAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { userWithTotp } from '../helpers/mfa.js';

// contract 0 (error codes) through both SDKs against a real Gatehouse: a caller branches on `error.code`,
// never on the sentence; both SDKs throw @gatehouse/errors' one class, and `isGatehouseError` holds across bundled copies.

let env: AuthEnv;
let app: TestApp;
const closers: (() => void)[] = [];

beforeAll(async () => {
  // A small per-email window, so the third wrong password of one address is 429 (and room in the per-IP one).
  env = await startAuthServer({ RATE_LIMITS: 'signin_email=2/60,signin_ip=100/60' });
  app = await createApp(env.server, { name: 'Error codes' });
});
afterAll(async () => {
  for (const close of closers) close();
  await env?.stop();
});

/** What a sign-in page would show for each outcome: the branch taken on `error.code`. */
function outcome(error: unknown): string {
  if (!isGatehouseError(error)) return 'not a GatehouseError';
  switch (error.code) {
    case 'invalid_credentials':
      return 'wrong email or password';
    case 'email_not_verified':
      return 'check your email';
    case 'mfa_required':
      return 'enter your code';
    case 'rate_limited':
      return `try again in ${error.retryAfter} s`;
    default:
      return `other: ${error.code}`;
  }
}

/** Three accounts: verified, unverified (signed up, no code entered), with a TOTP factor. */
async function accounts() {
  const verified = await verifiedUser(env, app);
  const unverified = { email: uniqueEmail('unverified'), password: 'correct horse battery' };
  expect((await signUp(env.server, app, unverified)).status).toBe(200);
  const withTotp = await userWithTotp(env, app);
  return { verified, unverified, withTotp };
}

describe('contract 0 @gatehouse/client: error.code', () => {
  it('signInWithPassword: the branches on error.code are invalid_credentials, email_not_verified, mfa_required, rate_limited', async () => {
    const { verified, unverified, withTotp } = await accounts();
    const gatehouse = createClient({ url: env.server.url, publishableKey: app.publishable_key, storage: memoryStorage() });
    closers.push(() => gatehouse.close());
    const attempt = (email: string, password: string) => gatehouse.auth.signInWithPassword({ email, password }).then(() => 'signed in', outcome);

    expect(await attempt(verified.email, 'not the password')).toBe('wrong email or password');
    expect(await attempt(unverified.email, unverified.password)).toBe('check your email');
    expect(await attempt(withTotp.email, withTotp.password)).toBe('enter your code');
    expect(await attempt(verified.email, 'not the password again')).toBe('wrong email or password');
    expect(await attempt(verified.email, 'and again')).toMatch(/^try again in [1-9]\d* s$/);

    const refused = await gatehouse.auth.signInWithPassword({ email: withTotp.email, password: withTotp.password }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MfaRequiredError);
    expect(refused).toMatchObject({ code: 'mfa_required', mfaToken: expect.stringMatching(/^mfa_/) });
    const limited = (await gatehouse.auth.signInWithPassword({ email: verified.email, password: 'x' }).catch((e: unknown) => e)) as GatehouseError;
    expect(limited).toMatchObject({ name: 'GatehouseError', status: 429, code: 'rate_limited', requestId: expect.any(String), retryAfter: expect.any(Number) });
    expect(Object.keys(limited)).not.toContain('request_id');
  });

  it('an unreachable server is status 0, code network_error', async () => {
    const nowhere = createClient({ url: 'http://127.0.0.1:9', publishableKey: app.publishable_key, storage: memoryStorage() });
    closers.push(() => nowhere.close());
    const error = await nowhere.auth.signInWithPassword({ email: 'a@example.com', password: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0, code: 'network_error' satisfies ClientErrorCode });
  });
});

describe('contract 0 @gatehouse/server: error.code', () => {
  it('admin.call over POST /v1/signins: the same four codes; named methods carry codes too', async () => {
    const { verified, unverified, withTotp } = await accounts();
    const admin = createAdminClient({ baseUrl: env.server.url, secretKey: app.secret_key });
    const attempt = (email: string, password: string) =>
      admin
        .call(
          admin.api.POST('/v1/signins', {
            headers: { 'x-publishable-key': app.publishable_key, authorization: null },
            body: { email, password, strategy: 'password' },
          }),
        )
        .then(() => 'signed in', outcome);

    // The per-email window counts per address: these addresses are new to it.
    expect(await attempt(verified.email, 'not the password')).toBe('wrong email or password');
    expect(await attempt(unverified.email, unverified.password)).toBe('check your email');
    expect(await attempt(withTotp.email, withTotp.password)).toBe('enter your code');
    expect(await attempt(verified.email, 'not the password again')).toBe('wrong email or password');
    expect(await attempt(verified.email, 'and again')).toMatch(/^try again in [1-9]\d* s$/);

    const missing = await admin.users.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ServerGatehouseError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' satisfies ErrorCode, requestId: expect.any(String) });
    const wrongKey = createAdminClient({ baseUrl: env.server.url, secretKey: 'sk_wrong' });
    await expect(wrongKey.billing.get()).rejects.toMatchObject({ status: 401, code: 'unauthenticated' });
  });
});

describe('contract 0: isGatehouseError across copies and SDKs', () => {
  it('both SDKs throw the one class; an error of a second bundled copy passes both guards; instanceof does not', async () => {
    expect(GatehouseError).toBe(ServerGatehouseError);
    // Two copies of @gatehouse/errors' module, as two bundles of one page would each carry.
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-copy-'));
    try {
      for (const name of ['first', 'second']) copyFileSync(resolve('packages/errors/dist/index.js'), join(dir, `${name}-errors.js`));
      const firstCopy = await import(pathToFileURL(join(dir, 'first-errors.js')).href);
      const secondCopy = await import(pathToFileURL(join(dir, 'second-errors.js')).href);
      const fromFirstCopy = new firstCopy.GatehouseError(429, 'rate_limited', 'too many requests', { requestId: 'req-1', retryAfter: 3 });
      const fromSecondCopy = new secondCopy.GatehouseError(401, 'invalid_credentials', 'invalid email or password', { requestId: 'req-2' });

      expect(fromFirstCopy).not.toBeInstanceOf(GatehouseError);
      expect(fromFirstCopy).not.toBeInstanceOf(secondCopy.GatehouseError);
      for (const error of [fromFirstCopy, fromSecondCopy, new ServerGatehouseError(404, 'not_found', 'user not found')]) {
        expect(isGatehouseError(error)).toBe(true);
        expect(isServerGatehouseError(error)).toBe(true);
        expect(firstCopy.isGatehouseError(error)).toBe(true);
      }
      expect(outcome(fromFirstCopy)).toBe('try again in 3 s');
      expect(outcome(fromSecondCopy)).toBe('wrong email or password');
      for (const other of [new Error('x'), { name: 'GatehouseError', code: 'not_found' }, null, 'GatehouseError']) {
        expect(isGatehouseError(other)).toBe(false);
        expect(isServerGatehouseError(other)).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
