import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import { OidcError, type IdTokenClaims } from './oidc.js';

// Sign-in with Microsoft (Entra ID and personal accounts) on the identity platform's v2.0 endpoints.
// The multi-tenant endpoints (common, organizations) publish a templated issuer,
// `https://login.microsoftonline.com/{tenantid}/v2.0`: each ID token is checked against the issuer of
// its own `tid`, and a tenant-specific configuration only accepts tokens of that tenant (its discovery
// document names one concrete issuer). The generic OIDC client checks one fixed issuer, so the code
// exchange and the ID token's checks are here, with jose verifying the signature by the JWKS.
// Microsoft's `email` claim is whatever the account's owner typed, unverified: only `xms_edov: true`
// (the optional claim "email domain owner verified") or `email_verified: true` vouches for it.

/** The tenant id of every personal Microsoft account. */
export const CONSUMERS_TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad';
const TIMEOUT_MS = 5_000;

export const microsoftDiscoveryUrl = (authority: string, tenant: string) => `${authority.replace(/\/+$/, '')}/${encodeURIComponent(tenant)}/v2.0/.well-known/openid-configuration`;

export interface MicrosoftExchange {
  authority: string;
  tenant: string;
  clientId: string;
  clientSecret: string;
  /** From the discovery document of the tenant. */
  metadata: { issuer: string; token_endpoint?: string; jwks_uri?: string };
  redirectUri: string;
  code: string;
  codeVerifier: string;
  nonce: string;
}

const jwksByUri = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
function jwks(uri: string) {
  let set = jwksByUri.get(uri);
  if (!set) {
    set = createRemoteJWKSet(new URL(uri), { timeoutDuration: TIMEOUT_MS });
    jwksByUri.set(uri, set);
  }
  return set;
}

/** Whether a token of tenant `tid` may sign in to a configuration of `tenant`. */
function tenantAccepts(tenant: string, tid: string, metadataIssuer: string, expectedIssuer: string): boolean {
  if (tenant === 'consumers' && tid !== CONSUMERS_TENANT) return false;
  if (tenant === 'organizations' && tid === CONSUMERS_TENANT) return false;
  // A templated issuer (common, organizations, consumers) takes each token's tid; a tenant's own
  // discovery document names its one issuer, so another tenant's token never matches.
  return metadataIssuer.includes('{tenantid}') ? metadataIssuer.replace('{tenantid}', tid) === expectedIssuer : metadataIssuer === expectedIssuer;
}

/** Exchanges the code (PKCE, client_secret_post) and checks the ID token per its tenant. */
export async function exchangeMicrosoftCode(input: MicrosoftExchange): Promise<IdTokenClaims> {
  const { metadata } = input;
  if (!metadata.token_endpoint || !metadata.jwks_uri) throw new OidcError('provider_error', "Microsoft's discovery document names no token endpoint or JWKS");
  let body: { id_token?: unknown; error?: unknown };
  try {
    const response = await fetch(metadata.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: input.code,
        redirect_uri: input.redirectUri,
        code_verifier: input.codeVerifier,
        client_id: input.clientId,
        client_secret: input.clientSecret,
      }),
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    body = (await response.json()) as typeof body;
    if (!response.ok || typeof body.error === 'string') throw new OidcError('token_exchange_failed', `the token endpoint answered ${typeof body.error === 'string' ? body.error : response.status}`);
  } catch (error) {
    if (error instanceof OidcError) throw error;
    if (error instanceof SyntaxError) throw new OidcError('token_exchange_failed', 'the token endpoint answered no JSON', { cause: error });
    throw new OidcError('provider_unavailable', 'Microsoft could not be reached', { cause: error });
  }
  if (typeof body.id_token !== 'string') throw new OidcError('invalid_id_token', 'the provider sent no ID token');
  const claims = await verifyIdToken(input, body.id_token);
  const tid = claims.tid as string;
  return {
    sub: `${tid}:${claims.oid as string}`,
    email: typeof claims.email === 'string' ? claims.email : undefined,
    email_verified: claims.xms_edov === true || claims.xms_edov === 'true' || claims.email_verified === true,
    name: typeof claims.name === 'string' ? claims.name : undefined,
  };
}

async function verifyIdToken(input: MicrosoftExchange, idToken: string): Promise<JWTPayload> {
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(idToken);
  } catch (error) {
    throw new OidcError('invalid_id_token', 'the ID token is not a JWT', { cause: error });
  }
  const { tid, oid } = unverified;
  if (typeof tid !== 'string' || !/^[0-9a-fA-F-]{36}$/.test(tid) || typeof oid !== 'string' || oid.length === 0) {
    throw new OidcError('invalid_id_token', 'the ID token carries no tenant id (tid) or object id (oid)');
  }
  const expectedIssuer = `${input.authority.replace(/\/+$/, '')}/${tid}/v2.0`;
  if (!tenantAccepts(input.tenant, tid, input.metadata.issuer, expectedIssuer)) {
    throw new OidcError('invalid_id_token', 'the ID token is of a tenant this application does not accept');
  }
  try {
    const { payload } = await jwtVerify(idToken, jwks(input.metadata.jwks_uri!), {
      issuer: expectedIssuer,
      audience: input.clientId,
      algorithms: ['RS256'],
      clockTolerance: 30,
      requiredClaims: ['exp', 'iat', 'tid', 'oid', 'nonce'],
    });
    if (payload.nonce !== input.nonce) throw new Error('the nonce does not match');
    return payload;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_JWKS_TIMEOUT' || (error instanceof TypeError && error.message === 'fetch failed')) {
      throw new OidcError('provider_unavailable', "Microsoft's signing keys could not be read", { cause: error });
    }
    throw new OidcError('invalid_id_token', 'the ID token failed verification', { cause: error });
  }
}
