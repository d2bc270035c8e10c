// The benchmark scenarios. Each one turns the prepared fixtures into the load of one endpoint (a spec of
// bench/lib/load-child.mjs: method, path, headers, body or a list of bodies); `prepare` may do setup work
// (unmeasured unless it returns extra rows) before the load.
// A new scenario is one more entry here and one more row in bench/README.md.

/**
 * @typedef {{ url: string }} Server
 * @typedef {{ appId: string, publishableKey: string, secretKey: string, userId: string, email: string, password: string, accessToken: string }} Fixtures
 * @typedef {{ duration: number, connections: number, load(spec: object): Promise<{ result: any, cpu: number, collected: unknown[], taken: number, exhausted: number }> }} Runner
 * @typedef {{ options: object, extraRows?: { name: string, endpoint: string, result: any }[], done?(run: any): void, notes?(result: any): string[] }} Prepared
 * @typedef {{ name: string, endpoint: string, prepare(server: Server, fx: Fixtures, runner: Runner): Promise<Prepared> }} Scenario
 */

const json = { 'content-type': 'application/json' };

/** @type {Scenario[]} */
export const SCENARIOS = [
  {
    name: 'health',
    endpoint: 'GET /v1/health',
    async prepare() {
      return { options: { method: 'GET', path: '/v1/health' } };
    },
  },
  {
    name: 'jwks',
    endpoint: 'GET /.well-known/jwks.json?app_id=',
    async prepare(_server, fx) {
      return { options: { method: 'GET', path: `/.well-known/jwks.json?app_id=${fx.appId}` } };
    },
  },
  {
    name: 'me',
    endpoint: 'GET /v1/me (Publishable + Bearer access token)',
    async prepare(_server, fx) {
      return {
        options: {
          method: 'GET',
          path: '/v1/me',
          headers: { 'x-publishable-key': fx.publishableKey, authorization: `Bearer ${fx.accessToken}` },
        },
      };
    },
  },
  {
    name: 'refresh',
    endpoint: 'POST /v1/tokens/session (a fresh refresh token per request)',
    async prepare(_server, fx, runner) {
      // Refresh tokens are single-use, so every request needs its own. They are minted beforehand with
      // POST /v1/sign_in_tokens under the same load settings for 1.5x the duration (minting costs about
      // what a refresh does); that run is reported as its own row.
      const { result: mint, collected: tokens } = await runner.load({
        method: 'POST',
        path: '/v1/sign_in_tokens',
        headers: { ...json, authorization: `Bearer ${fx.secretKey}` },
        body: JSON.stringify({ user_id: fx.userId }),
        duration: Math.ceil(runner.duration * 1.5),
        collect: 'refresh_token',
      });
      const minted = tokens.length;
      let used = 0;
      let exhausted = 0;
      return {
        extraRows: [{ name: 'sign_in_tokens', endpoint: 'POST /v1/sign_in_tokens (setup for refresh)', result: mint }],
        options: {
          method: 'POST',
          path: '/v1/tokens/session',
          headers: { ...json, 'x-publishable-key': fx.publishableKey },
          bodies: tokens.map((token) => JSON.stringify({ refresh_token: token })),
          exhaustedBody: JSON.stringify({ refresh_token: 'exhausted-no-refresh-token-left' }), // answered 401, counted as non-2xx
        },
        done: (run) => {
          exhausted = run.exhausted;
          used = run.taken;
        },
        notes: () => [
          `refresh: ${minted} refresh tokens minted, ${used} used` +
            (exhausted ? `, ran out: ${exhausted} requests built with a dead token (answered 401)` : ', none ran out'),
        ],
      };
    },
  },
  {
    name: 'signin',
    endpoint: 'POST /v1/signins (password; one argon2id verify each)',
    async prepare(_server, fx) {
      return {
        options: {
          method: 'POST',
          path: '/v1/signins',
          headers: { ...json, 'x-publishable-key': fx.publishableKey },
          body: JSON.stringify({ email: fx.email, password: fx.password }),
        },
      };
    },
  },
];
