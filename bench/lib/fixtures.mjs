// What the scenarios need before the load starts: one tenant and app made through the real CLI, one
// user with a password made through the Secret API, and an access token from a real password sign-in.

export const BENCH_EMAIL = 'bench-user@example.com';
export const BENCH_PASSWORD = 'correct horse battery staple';

/** One JSON request; throws unless the status is the expected one. */
export async function call(server, method, path, { body, headers = {}, expect = 200 } = {}) {
  const response = await fetch(server.url + path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expect) throw new Error(`${method} ${path}: expected ${expect}, got ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * @returns {Promise<{ appId: string, publishableKey: string, secretKey: string, userId: string, email: string, password: string, accessToken: string }>}
 */
export async function prepareFixtures(server) {
  const { tenant_id } = await server.cli(['tenant', 'create', '--name', 'B']);
  const app = await server.cli(['app', 'create', '--tenant', tenant_id, '--name', 'Bench', '--hashcash', 'off', '--passwords', 'on']);
  const user = await call(server, 'POST', '/v1/users', {
    body: { email: BENCH_EMAIL, password: BENCH_PASSWORD },
    headers: { authorization: `Bearer ${app.secret_key}` },
    expect: 201,
  });
  const signin = await call(server, 'POST', '/v1/signins', {
    body: { email: BENCH_EMAIL, password: BENCH_PASSWORD },
    headers: { 'x-publishable-key': app.publishable_key },
  });
  return {
    appId: app.app_id,
    publishableKey: app.publishable_key,
    secretKey: app.secret_key,
    userId: user.id,
    email: BENCH_EMAIL,
    password: BENCH_PASSWORD,
    accessToken: signin.access_token,
  };
}
