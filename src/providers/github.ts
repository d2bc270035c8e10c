import { OidcError, type IdTokenClaims } from './oidc.js';

// Sign-in with GitHub: OAuth 2.0 without an ID token (GitHub has none). The authorization URL carries
// state and a PKCE S256 challenge; the code is exchanged at GITHUB_URL/login/oauth/access_token; who the
// person is comes from the REST API: GET /user for the numeric id (the subject: a login can be renamed
// and reused, the id cannot) and GET /user/emails for the primary address, taken only when GitHub says
// it is verified.

const TIMEOUT_MS = 5_000;
const API_HEADERS = { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', 'user-agent': 'Gatehouse' };

export interface GitHubEndpoints {
  /** GITHUB_URL: https://github.com, or a stand-in. */
  web: string;
  /** GITHUB_API_URL: https://api.github.com, or a stand-in. */
  api: string;
}

const trim = (url: string) => url.replace(/\/+$/, '');

export function githubAuthorizationUrl(
  endpoints: GitHubEndpoints,
  input: { clientId: string; redirectUri: string; scope: string; state: string; codeChallenge: string },
): string {
  const url = new URL(`${trim(endpoints.web)}/login/oauth/authorize`);
  url.search = new URLSearchParams({
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    scope: input.scope,
    state: input.state,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
    allow_signup: 'true',
  }).toString();
  return url.href;
}

async function call(url: string, init: RequestInit, what: string): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    throw new OidcError('provider_unavailable', 'GitHub could not be reached', { cause: error });
  }
  try {
    return { status: response.status, body: await response.json() };
  } catch (error) {
    throw new OidcError(response.status >= 500 ? 'provider_unavailable' : 'provider_error', `GitHub's ${what} answered ${response.status} without JSON`, { cause: error });
  }
}

/** The callback's code → an access token → the user's id, name and primary verified email. */
export async function exchangeGitHubCode(
  endpoints: GitHubEndpoints,
  input: { clientId: string; clientSecret: string; redirectUri: string; code: string; codeVerifier: string },
): Promise<IdTokenClaims> {
  const token = await call(
    `${trim(endpoints.web)}/login/oauth/access_token`,
    {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Gatehouse' },
      body: new URLSearchParams({ client_id: input.clientId, client_secret: input.clientSecret, code: input.code, redirect_uri: input.redirectUri, code_verifier: input.codeVerifier }),
    },
    'token endpoint',
  );
  // GitHub answers a bad or expired code 200 {error: "bad_verification_code"}.
  const { access_token: accessToken, error } = (token.body ?? {}) as { access_token?: unknown; error?: unknown };
  if (token.status >= 500) throw new OidcError('provider_unavailable', `GitHub's token endpoint answered ${token.status}`);
  if (token.status !== 200 || typeof accessToken !== 'string') {
    throw new OidcError('token_exchange_failed', `the token endpoint answered ${typeof error === 'string' ? error : token.status}`);
  }
  const auth = { ...API_HEADERS, authorization: `Bearer ${accessToken}` };
  const user = await call(`${trim(endpoints.api)}/user`, { headers: auth }, 'user API');
  const emails = await call(`${trim(endpoints.api)}/user/emails`, { headers: auth }, 'emails API');
  for (const answer of [user, emails]) {
    if (answer.status >= 500) throw new OidcError('provider_unavailable', `GitHub's API answered ${answer.status}`);
    if (answer.status !== 200) throw new OidcError('provider_error', `GitHub's API answered ${answer.status}`);
  }
  const { id, login, name } = user.body as { id?: unknown; login?: unknown; name?: unknown };
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new OidcError('provider_error', 'GitHub sent no numeric user id');
  if (!Array.isArray(emails.body)) throw new OidcError('provider_error', "GitHub's emails API answered no list");
  const primary = (emails.body as { email?: unknown; primary?: unknown; verified?: unknown }[]).find((e) => e.primary === true && typeof e.email === 'string');
  return {
    sub: String(id),
    // No primary address, or an unverified one: an email not vouched for, refused as email_not_verified.
    email: typeof primary?.email === 'string' ? primary.email : '',
    email_verified: primary?.verified === true,
    name: typeof name === 'string' && name ? name : typeof login === 'string' ? login : undefined,
  };
}
