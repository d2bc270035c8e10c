import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

// A stand-in for GitHub on loopback, answering with the shapes of GitHub's real OAuth and REST API
// (docs.github.com: "Authorizing OAuth apps", "Get the authenticated user", "List email addresses for
// the authenticated user"), as GitHub Enterprise Server lays them out: the web flow at
// {base}/login/oauth/*, the API at {base}/api/v3. A person "signs in" through a login form (the login
// name picks the account) and approves, or denies; the token endpoint answers errors with 200 and an
// `error` field as GitHub does; /user/emails needs the user:email scope (else 404, as GitHub answers).

export interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
  visibility: 'public' | 'private' | null;
}

export interface GitHubAccount {
  id: number;
  login: string;
  name: string | null;
  emails: GitHubEmail[];
}

interface Grant {
  login: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  challenge?: string;
}

export interface GitHubStandIn {
  base: string;
  /** GITHUB_URL and GITHUB_API_URL for Gatehouse. */
  env: { GITHUB_URL: string; GITHUB_API_URL: string };
  /** By login name. */
  accounts: Map<string, GitHubAccount>;
  /** Registered OAuth apps: client id → secret. */
  clients: Map<string, string>;
  /** Every token request's form, in order (the test checks PKCE and the redirect_uri). */
  tokenRequests: Record<string, string>[];
  /** While true, every request is answered 503 (GitHub down). */
  down: boolean;
  stop(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  void res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));

async function readBody(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').includes('application/json')) return JSON.parse(text || '{}');
  return Object.fromEntries(new URLSearchParams(text));
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

let nextId = 583_231;
/** A GitHub account with a unique login and numeric id; its primary email verified unless said otherwise. */
export function newGitHubAccount(gh: GitHubStandIn, fields: { verified?: boolean; emails?: GitHubEmail[]; name?: string | null } = {}): GitHubAccount {
  const id = nextId++;
  const login = `octo-${id}-${randomBytes(3).toString('hex')}`;
  const account: GitHubAccount = {
    id,
    login,
    name: fields.name === undefined ? `Octo ${id}` : fields.name,
    emails: fields.emails ?? [
      { email: `${login}@users.example.com`, primary: true, verified: fields.verified ?? true, visibility: 'private' },
      { email: `${login}+old@example.org`, primary: false, verified: true, visibility: null },
    ],
  };
  gh.accounts.set(login, account);
  return account;
}

export async function startGitHubStandIn(): Promise<GitHubStandIn> {
  const codes = new Map<string, Grant & { expires: number }>();
  const tokens = new Map<string, { login: string; scope: string }>();
  const pending = new Map<string, Grant & { state: string }>();
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => json(res, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const gh: GitHubStandIn = {
    base,
    env: { GITHUB_URL: base, GITHUB_API_URL: `${base}/api/v3` },
    accounts: new Map(),
    clients: new Map(),
    tokenRequests: [],
    down: false,
    stop: async () => {
      const closing = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closing;
    },
  };

  function back(grant: { redirectUri: string; state: string }, params: Record<string, string>, res: ServerResponse) {
    const url = new URL(grant.redirectUri);
    for (const [key, value] of Object.entries({ ...params, state: grant.state })) url.searchParams.set(key, value);
    res.writeHead(302, { location: url.href }).end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (gh.down) return json(res, 503, { message: 'Service Unavailable' });
    const url = new URL(req.url ?? '/', base);
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const q = Object.fromEntries(url.searchParams);
      if (!gh.clients.has(q.client_id ?? '')) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<p>Not Found</p>');
      const id = randomBytes(12).toString('hex');
      pending.set(id, { login: '', clientId: q.client_id, redirectUri: q.redirect_uri, scope: q.scope ?? '', state: q.state ?? '', challenge: q.code_challenge_method === 'S256' ? q.code_challenge : undefined });
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<form method="post" action="/session"><input name="authorize_id" value="${escape(id)}"><input name="login" value=""><input name="password" value=""><input type="submit"></form>`);
    }
    if (req.method === 'POST' && url.pathname === '/session') {
      const form = await readBody(req);
      const grant = pending.get(form.authorize_id ?? '');
      pending.delete(form.authorize_id ?? '');
      if (!grant) return json(res, 400, { message: 'unknown authorization' });
      // "Cancel" on GitHub's page: back with access_denied, as GitHub sends it.
      if (form.login === 'deny') return back(grant, { error: 'access_denied', error_description: 'The user has denied your application access.', error_uri: 'https://docs.github.com/apps/troubleshooting-authorization-request-errors/#access-denied' }, res);
      if (!gh.accounts.has(form.login)) return json(res, 400, { message: 'unknown login' });
      const code = randomBytes(10).toString('hex');
      codes.set(code, { ...grant, login: form.login, expires: Date.now() + 600_000 });
      return back(grant, { code }, res);
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const form = await readBody(req);
      gh.tokenRequests.push(form);
      const grant = codes.get(form.code ?? '');
      codes.delete(form.code ?? '');
      if (gh.clients.get(form.client_id ?? '') !== form.client_secret) {
        return json(res, 200, { error: 'incorrect_client_credentials', error_description: 'The client_id and/or client_secret passed are incorrect.', error_uri: 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#incorrect-client-credentials' });
      }
      const verifierOk = !grant?.challenge || createHash('sha256').update(form.code_verifier ?? '').digest('base64url') === grant.challenge;
      if (!grant || grant.clientId !== form.client_id || grant.expires < Date.now() || !verifierOk) {
        return json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.', error_uri: 'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code' });
      }
      if (form.redirect_uri && form.redirect_uri !== grant.redirectUri) {
        return json(res, 200, { error: 'redirect_uri_mismatch', error_description: 'The redirect_uri MUST match the registered callback URL for this application.' });
      }
      const token = `gho_${randomBytes(18).toString('base64url')}`;
      const scope = grant.scope.split(/[ ,]+/).filter(Boolean).join(',');
      tokens.set(token, { login: grant.login, scope });
      return json(res, 200, { access_token: token, token_type: 'bearer', scope });
    }
    if (req.method === 'GET' && url.pathname.startsWith('/api/v3/')) {
      const bearer = /^(?:Bearer|token) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const session = bearer ? tokens.get(bearer) : undefined;
      if (!session) return json(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
      const account = gh.accounts.get(session.login)!;
      if (url.pathname === '/api/v3/user') {
        const publicEmail = account.emails.find((e) => e.visibility === 'public')?.email ?? null;
        return json(res, 200, {
          login: account.login,
          id: account.id,
          node_id: `MDQ6VXNlcj${account.id}`,
          avatar_url: `https://avatars.githubusercontent.com/u/${account.id}?v=4`,
          html_url: `https://github.com/${account.login}`,
          type: 'User',
          site_admin: false,
          name: account.name,
          company: null,
          email: publicEmail,
          created_at: '2011-01-25T18:44:36Z',
        });
      }
      if (url.pathname === '/api/v3/user/emails') {
        if (!session.scope.split(',').includes('user:email') && !session.scope.split(',').includes('user')) {
          return json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/users/emails#list-email-addresses-for-the-authenticated-user', status: '404' });
        }
        return json(res, 200, account.emails);
      }
    }
    json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
  }

  return gh;
}
