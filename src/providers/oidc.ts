import type * as OpenId from 'openid-client';
import { ApiError } from '../errors.js';
import { RefusedAddressError } from './safe-fetch.js';

// Client of the OpenID Connect issuers (Google, Apple, custom `oidc-<name>` ones) through openid-client: discovery, the
// authorization URL with PKCE, the code exchange and every ID-token check (signature by the issuer's
// JWKS, issuer, audience, nonce, expiry). Nothing here is hand-written that the library does.

/** How long a discovery document is reused; an issuer moves its endpoints rarely, keys come from its JWKS each time. */
const DISCOVERY_TTL_MS = 5 * 60_000;
/** Seconds an issuer gets per request: a hung issuer must not hold a sign-in open. */
const ISSUER_TIMEOUT_SECONDS = 5;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

// openid-client is loaded on the first OAuth request: most deployments never configure a provider, and an
// idle server should not hold it. Everything below that uses `client` runs after `oidc()` has resolved
// (a Configuration only exists once discovery has run).
let client: typeof OpenId;
async function oidc(): Promise<typeof OpenId> {
  client ??= await import('openid-client');
  return client;
}

/** Why a callback failed, as the stable `?error=` code the browser is sent back with. */
export type OidcFailure = 'provider_unavailable' | 'provider_error' | 'access_denied' | 'token_exchange_failed' | 'invalid_id_token';

export class OidcError extends Error {
  constructor(readonly code: OidcFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The fetch openid-client uses for an issuer (safe-fetch.ts's guarded one for an issuer an app chose). */
export type IssuerFetch = (url: string, init: { method?: string; headers?: Record<string, string>; body?: any; signal?: AbortSignal | null }) => Promise<Response>;

export interface ClientSettings {
  issuer: string;
  clientId: string;
  /** client_secret_basic (Google, custom issuers) or client_secret_post (Apple, whose secret is a short-lived JWT). */
  auth: { method: 'client_secret_basic' | 'client_secret_post'; secret: string };
  /** Every request to the issuer goes through it (a custom issuer's: no private address); default: fetch. */
  fetch?: IssuerFetch;
}

export interface IdTokenClaims {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/** The issuers' discovery documents, cached per issuer for a few minutes (failures are not cached). */
export class OidcIssuers {
  private readonly cache = new Map<string, { metadata: OpenId.ServerMetadata; until: number }>();

  /**
   * The issuer's metadata. An http:// issuer is accepted only on loopback (tests, local providers);
   * everything else must be https. Unreachable or malformed → 502 `provider_unreachable`.
   */
  async metadata(issuer: string, fetch?: IssuerFetch): Promise<OpenId.ServerMetadata> {
    const cached = this.cache.get(issuer);
    if (cached && cached.until > Date.now()) return cached.metadata;
    const url = issuerUrl(issuer);
    await oidc();
    try {
      const config = await client.discovery(url, 'discovery', undefined, client.None(), {
        execute: url.protocol === 'http:' ? [client.allowInsecureRequests] : [],
        timeout: ISSUER_TIMEOUT_SECONDS,
        ...(fetch ? { [client.customFetch]: fetch } : {}),
      });
      const metadata = { ...config.serverMetadata() };
      this.cache.set(issuer, { metadata, until: Date.now() + DISCOVERY_TTL_MS });
      return metadata;
    } catch (error) {
      throw new ApiError(502, 'provider_unreachable', `the provider's discovery document at ${issuer} could not be read`, { cause: error });
    }
  }

  /** A configured client of the issuer: discovery (cached) plus the app's client id and authentication. */
  async configuration(settings: ClientSettings): Promise<OpenId.Configuration> {
    const metadata = await this.metadata(settings.issuer, settings.fetch);
    const auth = settings.auth.method === 'client_secret_basic' ? client.ClientSecretBasic(settings.auth.secret) : client.ClientSecretPost(settings.auth.secret);
    const config = new client.Configuration(metadata, settings.clientId, undefined, auth);
    config.timeout = ISSUER_TIMEOUT_SECONDS;
    if (new URL(settings.issuer).protocol === 'http:') client.allowInsecureRequests(config);
    if (settings.fetch) config[client.customFetch] = settings.fetch;
    // openid-client skips the ID token's signature when the token came straight from the token endpoint
    // over TLS (OIDC Core 3.1.3.7 allows it); we check it against the issuer's JWKS anyway.
    client.enableNonRepudiationChecks(config);
    return config;
  }
}

export function issuerUrl(issuer: string): URL {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch (error) {
    throw new ApiError(502, 'provider_unreachable', `the issuer ${issuer} is not a URL`, { cause: error });
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    throw new ApiError(502, 'provider_unreachable', `the issuer ${issuer} must use https (http only on loopback)`);
  }
  return url;
}

/** Fresh PKCE verifier, its S256 challenge, a state and a nonce. */
export async function newAuthorizationSecrets() {
  await oidc();
  const codeVerifier = client.randomPKCECodeVerifier();
  return {
    codeVerifier,
    codeChallenge: await client.calculatePKCECodeChallenge(codeVerifier),
    state: client.randomState(),
    nonce: client.randomNonce(),
  };
}

/** The URL the browser is sent to at the issuer (its authorization endpoint from discovery). */
export function authorizationUrl(
  config: OpenId.Configuration,
  input: { redirectUri: string; scope: string; state: string; nonce: string; codeChallenge: string; responseMode?: 'form_post' },
): string {
  const params: Record<string, string> = {
    response_type: 'code',
    redirect_uri: input.redirectUri,
    scope: input.scope,
    state: input.state,
    nonce: input.nonce,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
  };
  if (input.responseMode) params.response_mode = input.responseMode;
  return client.buildAuthorizationUrl(config, params).href;
}

/**
 * Exchanges the code of `callbackUrl` (the exact redirect_uri plus the parameters the issuer sent) with
 * the PKCE verifier, and checks the ID token: signature by the issuer's JWKS, issuer, audience, nonce,
 * expiry. Throws OidcError with the failure's code.
 */
export async function exchangeCode(
  config: OpenId.Configuration,
  callbackUrl: URL,
  checks: { state: string; nonce: string; codeVerifier: string },
): Promise<IdTokenClaims> {
  let claims: OpenId.IDToken | undefined;
  try {
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      pkceCodeVerifier: checks.codeVerifier,
      idTokenExpected: true,
    });
    claims = tokens.claims();
  } catch (error) {
    throw classify(error);
  }
  if (!claims || typeof claims.sub !== 'string') throw new OidcError('invalid_id_token', 'the provider sent no ID token');
  // Apple sends email_verified as the string "true"; Google as a boolean.
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  return {
    sub: claims.sub,
    email: typeof claims.email === 'string' ? claims.email : undefined,
    email_verified: verified,
    name: typeof claims.name === 'string' ? claims.name : undefined,
  };
}

const UNREACHABLE_CODES = new Set(['OAUTH_TIMEOUT', 'OAUTH_ABORT', 'OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON']);

/** The guarded fetch's refusal somewhere in the error's causes (safe-fetch.ts), if that is what failed. */
function refusal(error: unknown): RefusedAddressError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof RefusedAddressError) return e;
  return undefined;
}

function classify(error: unknown): OidcError {
  const refused = refusal(error);
  if (refused) return new OidcError('provider_unavailable', `the provider's endpoint was not requested: ${refused.message}`, { cause: error });
  if (error instanceof client.AuthorizationResponseError) {
    return new OidcError(error.error === 'access_denied' ? 'access_denied' : 'provider_error', `the provider answered ${error.error}`, { cause: error });
  }
  if (error instanceof client.ResponseBodyError) {
    return new OidcError('token_exchange_failed', `the token endpoint answered ${error.error}`, { cause: error });
  }
  // fetch rejects with a TypeError when the socket fails (refused, reset, DNS).
  if (error instanceof TypeError && error.message === 'fetch failed') {
    return new OidcError('provider_unavailable', 'the provider could not be reached', { cause: error });
  }
  if (error instanceof client.ClientError && UNREACHABLE_CODES.has(error.code ?? '')) {
    return new OidcError('provider_unavailable', 'the provider could not be reached', { cause: error });
  }
  if (error instanceof client.ClientError && /fetch failed/.test(String((error.cause as Error | undefined)?.message))) {
    return new OidcError('provider_unavailable', 'the provider could not be reached', { cause: error });
  }
  return new OidcError('invalid_id_token', 'the ID token failed verification', { cause: error });
}
