import { open } from '../../crypto/envelope.js';
import type { Deps } from '../../deps.js';
import type { AppleClientSecrets } from '../../providers/apple-secret.js';
import { exchangeGitHubCode, githubAuthorizationUrl } from '../../providers/github.js';
import { exchangeMicrosoftCode, microsoftDiscoveryUrl } from '../../providers/microsoft.js';
import { authorizationUrl, exchangeCode, OidcError, type ClientSettings, type IdTokenClaims, type OidcIssuers } from '../../providers/oidc.js';
import { guardedFetch } from '../../providers/safe-fetch.js';
import type { OAuthProviderRow } from '../../store/types.js';
import { defaultScopes, isCustom, providerSecretBinding } from './providers.js';

// How each provider's sign-in runs, behind one shape (docs/oauth.md): Google, Apple and custom
// `oidc-<name>` issuers through the generic OpenID Connect client (discovery, PKCE, state, nonce, every
// ID-token check), Microsoft with its per-tenant issuer (providers/microsoft.ts), GitHub's OAuth 2.0 and
// REST API (providers/github.ts). A custom issuer is reached only through the guarded fetch: the app's
// owner chose the host, so no request of it may go to a private address.

export type FlowDeps = Pick<Deps, 'config' | 'masterKey' | 'masterKeys'> & { issuers: OidcIssuers; appleSecrets: AppleClientSecrets };

export interface AuthorizeInput {
  redirectUri: string;
  state: string;
  nonce: string;
  codeChallenge: string;
}

/** What the issuer sent to the callback, and what authorize kept for it. */
export interface ExchangeInput {
  params: Record<string, string | undefined>;
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface ProviderFlow {
  /** Apple answers with response_mode=form_post, a cross-site POST (its cookie must be SameSite=None). */
  formPost: boolean;
  /** The origin whose form_post a callback accepts. */
  origin: string;
  authorize(input: AuthorizeInput): Promise<string>;
  /** Throws OidcError with the failure's `?error=` code. */
  exchange(input: ExchangeInput): Promise<IdTokenClaims>;
}

/** Whether the provider answers with a form_post (known from the name alone: the callback route needs it before any lookup). */
export const usesFormPost = (provider: string) => provider === 'apple';

const scopeOf = (row: OAuthProviderRow) => {
  const scopes = JSON.parse(row.scopes) as string[];
  return (scopes.length > 0 ? scopes : defaultScopes(row.provider)).join(' ');
};

/** An `error` the issuer sent back instead of a code (GitHub and Microsoft; openid-client reads it for the others). */
function refusedAtProvider(params: ExchangeInput['params']): void {
  if (params.error) throw new OidcError(params.error === 'access_denied' ? 'access_denied' : 'provider_error', `the provider answered ${params.error}`);
  if (!params.code) throw new OidcError('provider_error', 'the provider sent no code');
}

/** The flow of an app's configured provider. */
export async function flowFor(deps: FlowDeps, row: OAuthProviderRow): Promise<ProviderFlow> {
  const secret = () => open(deps.masterKeys, row.secret_sealed, providerSecretBinding(row.app_id, row.provider));
  if (row.provider === 'github') {
    const endpoints = { web: deps.config.githubUrl, api: deps.config.githubApiUrl };
    return {
      formPost: false,
      origin: new URL(endpoints.web).origin,
      authorize: async (input) => githubAuthorizationUrl(endpoints, { clientId: row.client_id, scope: scopeOf(row), ...input }),
      exchange: async (input) => {
        refusedAtProvider(input.params);
        return exchangeGitHubCode(endpoints, { clientId: row.client_id, clientSecret: secret(), redirectUri: input.redirectUri, code: input.params.code!, codeVerifier: input.codeVerifier });
      },
    };
  }
  if (row.provider === 'microsoft') {
    const tenant = row.tenant ?? 'common';
    const settings: ClientSettings = { issuer: microsoftDiscoveryUrl(deps.config.microsoftAuthority, tenant), clientId: row.client_id, auth: { method: 'client_secret_post', secret: secret() } };
    const config = await deps.issuers.configuration(settings);
    return {
      formPost: false,
      origin: new URL(deps.config.microsoftAuthority).origin,
      authorize: async (input) => authorizationUrl(config, { scope: scopeOf(row), ...input }),
      exchange: async (input) => {
        refusedAtProvider(input.params);
        const metadata = config.serverMetadata();
        return exchangeMicrosoftCode({
          authority: deps.config.microsoftAuthority,
          tenant,
          clientId: row.client_id,
          clientSecret: settings.auth.secret,
          metadata: { issuer: metadata.issuer, token_endpoint: metadata.token_endpoint, jwks_uri: metadata.jwks_uri },
          redirectUri: input.redirectUri,
          code: input.params.code!,
          codeVerifier: input.codeVerifier,
          nonce: input.nonce,
        });
      },
    };
  }
  const settings = await oidcSettings(deps, row, secret());
  const config = await deps.issuers.configuration(settings);
  return {
    formPost: usesFormPost(row.provider),
    origin: new URL(settings.issuer).origin,
    authorize: async (input) => authorizationUrl(config, { scope: scopeOf(row), responseMode: usesFormPost(row.provider) ? 'form_post' : undefined, ...input }),
    exchange: async (input) => {
      const url = new URL(input.redirectUri);
      for (const key of ['code', 'state', 'iss', 'error', 'error_description'] as const) {
        if (input.params[key] !== undefined) url.searchParams.set(key, input.params[key]);
      }
      return exchangeCode(config, url, { state: input.state, nonce: input.nonce, codeVerifier: input.codeVerifier });
    },
  };
}

/** How to talk to an OpenID Connect issuer as this app: the opened client secret, or (Apple) a client-secret JWT signed with the opened key. */
async function oidcSettings(deps: FlowDeps, row: OAuthProviderRow, secret: string): Promise<ClientSettings> {
  if (row.provider === 'google') {
    return { issuer: deps.config.googleIssuer, clientId: row.client_id, auth: { method: 'client_secret_basic', secret } };
  }
  if (isCustom(row.provider)) {
    return { issuer: row.issuer ?? '', clientId: row.client_id, auth: { method: 'client_secret_basic', secret }, fetch: guardedFetch(deps.config.oidcAllowLoopbackIssuers) };
  }
  const jwt = await deps.appleSecrets.secretFor(row.app_id, {
    clientId: row.client_id,
    teamId: row.team_id ?? '',
    keyId: row.key_id ?? '',
    privateKeyPem: secret,
    audience: deps.config.appleIssuer,
  });
  return { issuer: deps.config.appleIssuer, clientId: row.client_id, auth: { method: 'client_secret_post', secret: jwt } };
}
