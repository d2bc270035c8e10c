import { isIP } from 'node:net';
import { iso } from '../../clock.js';
import { seal } from '../../crypto/envelope.js';
import type { Deps } from '../../deps.js';
import { ApiError, badRequest, notFound } from '../../errors.js';
import { parseAppleKey } from '../../providers/apple-secret.js';
import { refusedAddress } from '../../providers/safe-fetch.js';
import type { Db } from '../../store/db.js';
import * as providers from '../../store/repos/oauth-providers.js';
import type { Application } from '../../store/repos/applications.js';
import { inTransaction } from '../../store/transaction.js';
import { recordEvent } from '../events/record.js';
import { eventOf, type EventContext } from '../events/types.js';
import type { OAuthProviderName } from '../../store/repos/oauth-providers.js';
import type { OAuthProviderRow } from '../../store/types.js';

export type { OAuthProviderName };

// Each app's OAuth provider configuration (docs/oauth.md). Client secrets and the Apple .p8 key are
// sealed with MASTER_KEY, bound to (app, provider): a database dump shows none, and a sealed value copied
// to another app's row does not open.

export type ProviderConfigDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'masterKey' | 'masterKeys' | 'store'>;

export const BUILT_IN: readonly OAuthProviderName[] = ['google', 'apple', 'github', 'microsoft'];
/** A custom OpenID Connect provider's name. */
export const CUSTOM_PROVIDER = /^oidc-[a-z0-9-]{1,40}$/;
/** Custom providers an app may have. */
export const MAX_CUSTOM_PROVIDERS = 20;
export const isProvider = (name: string): name is OAuthProviderName => (BUILT_IN as readonly string[]).includes(name) || CUSTOM_PROVIDER.test(name);
export const isCustom = (name: string): name is `oidc-${string}` => CUSTOM_PROVIDER.test(name);

const DISPLAY_NAMES: Record<string, string> = { google: 'Google', apple: 'Apple', github: 'GitHub', microsoft: 'Microsoft' };
const OIDC_SCOPES = ['openid', 'email', 'profile'];

export function defaultScopes(provider: OAuthProviderName): string[] {
  // Apple only sends the name (in the first form_post) when `name` is asked for; GitHub's emails API needs user:email.
  if (provider === 'apple') return ['openid', 'email', 'name'];
  if (provider === 'github') return ['read:user', 'user:email'];
  return OIDC_SCOPES;
}

const REDACTED = '****' as const;
export const providerSecretBinding = (appId: string, provider: OAuthProviderName) => `oauth-provider:${appId}:${provider}`;

/** What the API shows of a configuration: every secret as "****". */
export interface ProviderView {
  provider: OAuthProviderName;
  display_name: string;
  client_id: string;
  client_secret?: typeof REDACTED;
  team_id?: string;
  key_id?: string;
  private_key?: typeof REDACTED;
  tenant?: string;
  issuer?: string;
  scopes: string[];
  configured_at: string;
  updated_at: string;
}

export const displayName = (row: OAuthProviderRow) => row.display_name ?? DISPLAY_NAMES[row.provider] ?? row.provider;

function view(row: OAuthProviderRow): ProviderView {
  const common = {
    provider: row.provider,
    display_name: displayName(row),
    client_id: row.client_id,
    scopes: JSON.parse(row.scopes) as string[],
    configured_at: row.configured_at,
    updated_at: row.updated_at,
  };
  if (row.provider === 'apple') return { ...common, team_id: row.team_id ?? '', key_id: row.key_id ?? '', private_key: REDACTED };
  if (row.provider === 'microsoft') return { ...common, client_secret: REDACTED, tenant: row.tenant ?? 'common' };
  if (isCustom(row.provider)) return { ...common, client_secret: REDACTED, issuer: row.issuer ?? '' };
  return { ...common, client_secret: REDACTED };
}

/** `secret` undefined: keep the stored one (an update of a configured provider; docs/oauth.md). */
type Settings = { clientId: string; secret: string | undefined; teamId?: string; keyId?: string; scopes: string[]; issuer?: string; tenant?: string; displayName?: string };

function rowOf(deps: ProviderConfigDeps, appId: string, provider: OAuthProviderName, input: Settings, sealed: string): OAuthProviderRow {
  const now = iso(deps.clock.now());
  return {
    app_id: appId,
    provider,
    client_id: input.clientId,
    secret_sealed: sealed,
    team_id: input.teamId ?? null,
    key_id: input.keyId ?? null,
    scopes: JSON.stringify(input.scopes),
    configured_at: now,
    updated_at: now,
    issuer: input.issuer ?? null,
    tenant: input.tenant ?? null,
    display_name: input.displayName ?? null,
  };
}

/** Who changed the configuration, for its event (`oauth_provider.updated|deleted`: the provider's name, never a secret). */
export interface ConfigChange {
  app: Pick<Application, 'id' | 'tenantId'>;
  context: EventContext;
}

const recordChange = (trx: Db, change: ConfigChange, type: 'oauth_provider.updated' | 'oauth_provider.deleted', provider: OAuthProviderName) =>
  recordEvent(trx, eventOf(change.context, { type, tenantId: change.app.tenantId, appId: change.app.id, userId: null, data: { provider } }));

/**
 * Writes the configuration and its event in one transaction (a custom provider past the cap: 409, neither).
 * No secret given: an update of the stored configuration that leaves its sealed secret as it is; a provider
 * not configured yet needs one (400, nothing written).
 */
async function save(deps: ProviderConfigDeps, change: ConfigChange, provider: OAuthProviderName, input: Settings) {
  const { secret } = input;
  await inTransaction(deps.db, async (trx) => {
    if (secret === undefined) {
      const { secret_sealed: _none, configured_at: _kept, ...settings } = rowOf(deps, change.app.id, provider, input, '');
      if (!(await providers.updateOAuthProviderKeepingSecret(trx, settings))) {
        throw badRequest(`${provider === 'apple' ? 'private_key' : 'client_secret'} is required: ${provider} is not configured for this application yet`);
      }
    } else {
      const row = rowOf(deps, change.app.id, provider, input, seal(deps.masterKey, secret, providerSecretBinding(change.app.id, provider)));
      if (isCustom(provider)) {
        if (!(await providers.upsertCustomOAuthProvider(trx, deps.store.dialect, row, MAX_CUSTOM_PROVIDERS))) {
          throw new ApiError(409, 'provider_limit_reached', `an application has at most ${MAX_CUSTOM_PROVIDERS} custom OpenID Connect providers`);
        }
      } else {
        await providers.upsertOAuthProvider(trx, row);
      }
    }
    await recordChange(trx, change, 'oauth_provider.updated', provider);
  });
  return view((await providers.findOAuthProvider(deps.db, change.app.id, provider))!);
}

/** The scopes asked for: the given ones (else the provider's default), with the one the flow needs always among them. */
const withScope = (required: string, scopes: string[] | undefined, fallback: string[]) => (scopes && scopes.length > 0 ? [...new Set([required, ...scopes])] : fallback);

/** Configures Google sign-in (replacing an earlier configuration). `openid` is always among the scopes. */
export function configureGoogle(deps: ProviderConfigDeps, change: ConfigChange, input: { client_id: string; client_secret?: string; scopes?: string[] }) {
  return save(deps, change, 'google', { clientId: input.client_id, secret: input.client_secret, scopes: withScope('openid', input.scopes, OIDC_SCOPES) });
}

/** Configures GitHub sign-in; `user:email` is always among the scopes (the emails API needs it). */
export function configureGitHub(deps: ProviderConfigDeps, change: ConfigChange, input: { client_id: string; client_secret?: string; scopes?: string[] }) {
  return save(deps, change, 'github', { clientId: input.client_id, secret: input.client_secret, scopes: withScope('user:email', input.scopes, defaultScopes('github')) });
}

/** Configures Microsoft sign-in for a tenant: common, organizations, consumers, or one tenant's id or domain. */
export function configureMicrosoft(deps: ProviderConfigDeps, change: ConfigChange, input: { client_id: string; client_secret?: string; tenant: string }) {
  return save(deps, change, 'microsoft', { clientId: input.client_id, secret: input.client_secret, tenant: input.tenant.toLowerCase(), scopes: OIDC_SCOPES });
}

/** Configures Apple sign-in; the .p8 key must parse as an ES256 key (else 400), so a typo fails here, not at a user's sign-in. */
export function configureApple(deps: ProviderConfigDeps, change: ConfigChange, input: { client_id: string; team_id: string; key_id: string; private_key?: string }) {
  try {
    if (input.private_key !== undefined) parseAppleKey(input.private_key);
  } catch (error) {
    throw badRequest((error as Error).message);
  }
  return save(deps, change, 'apple', { clientId: input.client_id, secret: input.private_key, teamId: input.team_id, keyId: input.key_id, scopes: defaultScopes('apple') });
}

/**
 * Configures a custom OpenID Connect provider. The issuer must be https (http on loopback only, and
 * loopback only where OIDC_ALLOW_LOOPBACK_ISSUERS allows it) and not a private address; a name that
 * resolves to one is refused at each request (providers/safe-fetch.ts). 409 past the app's 20.
 */
export function configureCustom(
  deps: ProviderConfigDeps,
  change: ConfigChange,
  provider: `oidc-${string}`,
  input: { issuer: string; client_id: string; client_secret?: string; scopes?: string[]; display_name: string },
) {
  const issuer = checkIssuer(input.issuer, deps.config.oidcAllowLoopbackIssuers);
  return save(deps, change, provider, {
    clientId: input.client_id,
    secret: input.client_secret,
    issuer,
    displayName: input.display_name.trim(),
    scopes: withScope('openid', input.scopes, OIDC_SCOPES),
  });
}

const LOOPBACK_NAMES = new Set(['localhost']);

function checkIssuer(raw: string, allowLoopback: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError(400, 'invalid_issuer', 'issuer is not a URL');
  }
  if (url.username || url.password || url.search || url.hash) throw new ApiError(400, 'invalid_issuer', 'issuer must not carry credentials, a query or a fragment');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopbackName = LOOPBACK_NAMES.has(host.toLowerCase()) || host.toLowerCase().endsWith('.localhost');
  const refused = isIP(host) ? refusedAddress(host, allowLoopback) : loopbackName && !allowLoopback ? 'a loopback address' : null;
  if (refused) throw new ApiError(400, 'invalid_issuer', `issuer is ${refused}, which the service does not reach`);
  const loopback = loopbackName || (isIP(host) && refusedAddress(host, false) !== null);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new ApiError(400, 'invalid_issuer', 'issuer must use https (http only on loopback)');
  return url.href.replace(/\/+$/, '');
}

export async function listProviders(deps: ProviderConfigDeps, appId: string): Promise<ProviderView[]> {
  return (await providers.listOAuthProviders(deps.db, appId)).map(view);
}

/** What a sign-in page may offer: each configured provider's name and display name, nothing else. */
export async function listPublicProviders(deps: Pick<Deps, 'db'>, appId: string): Promise<{ provider: OAuthProviderName; display_name: string }[]> {
  return (await providers.listOAuthProviders(deps.db, appId)).map((row) => ({ provider: row.provider, display_name: displayName(row) }));
}

/** Removes the app's configuration of the provider; 404 when there is none. */
export async function removeProvider(deps: ProviderConfigDeps, change: ConfigChange, provider: OAuthProviderName): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    if (!(await providers.deleteOAuthProvider(trx, change.app.id, provider))) throw notFound(`${provider} is not configured for this application`);
    await recordChange(trx, change, 'oauth_provider.deleted', provider);
  });
}
