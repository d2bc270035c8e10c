import { expect } from 'vitest';
import { stepAt, totpCode } from '../../src/crypto/totp.js';
import { verifiedUser, type AuthEnv } from './accounts.js';
import { api, type TestApp } from './fixtures.js';
import type { TestServer } from './server.js';

// Second-factor fixtures (docs/mfa.md), through the public API.

/** The claims of a JWT (no verification: the tests only read what the server wrote). */
export const claimsOf = (jwt: string): Record<string, any> => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));

/**
 * The code of the step `ahead` steps from now. Confirming an enrollment uses the current step, so the
 * next code a test may use is the next step's (a step is accepted once; the server takes now ± 1).
 */
export const codeAt = (secret: string, ahead = 0) => totpCode(secret, stepAt(new Date()) + ahead);

/** POST /v1/me/factors/totp then /verify with the current code: the secret, the recovery codes and the aal2 token. */
export async function enrollTotp(server: TestServer, app: TestApp, accessToken: string) {
  const enrolled = await api(server, 'POST', '/v1/me/factors/totp', { publishableKey: app.publishable_key, bearer: accessToken, body: {} });
  expect(enrolled.status).toBe(201);
  const secret = enrolled.body.totp.secret as string;
  const confirmed = await api(server, 'POST', `/v1/me/factors/${enrolled.body.factor_id}/verify`, {
    publishableKey: app.publishable_key,
    bearer: accessToken,
    body: { code: codeAt(secret) },
  });
  expect(confirmed.status).toBe(200);
  return { factorId: enrolled.body.factor_id as string, secret, recoveryCodes: confirmed.body.recovery_codes as string[], accessToken: confirmed.body.access_token as string };
}

/** A verified user with a confirmed TOTP factor, and both emails that made them delivered. */
export async function userWithTotp(env: AuthEnv, app: TestApp) {
  const user = await verifiedUser(env, app);
  const totp = await enrollTotp(env.server, app, user.tokens.access_token);
  // Its two emails (the sign-up's code, the enrollment's notice) are in, so a test's next email is the third.
  await env.sink.waitFor(user.email, { count: 2 });
  return { ...user, ...totp };
}

/** Password sign-in: for a user with a factor, the MFA challenge. */
export async function passwordChallenge(server: TestServer, app: TestApp, email: string, password: string) {
  const res = await api(server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password } });
  expect(res.status).toBe(200);
  expect(res.body.mfa_required).toBe(true);
  return res.body.mfa_token as string;
}

export const verifyMfa = (server: TestServer, app: TestApp, body: Record<string, unknown>) =>
  api(server, 'POST', '/v1/mfa/verify', { publishableKey: app.publishable_key, body });
