import { iso } from '../../clock.js';
import { open, seal } from '../../crypto/envelope.js';
import type { Deps } from '../../deps.js';
import { badRequest, notFound } from '../../errors.js';
import { parseAppleKey } from '../../providers/apple-secret.js';
import type { ClientSettings } from '../../providers/oidc.js';
import type { AppleClientSecrets } from '../../providers/apple-secret.js';
import * as providers from '../../store/repos/oauth-providers.js';
import type { OAuthProviderName } from '../../store/repos/oauth-providers.js';
import type { OAuthProviderRow } from '../../store/types.js';

export type { OAuthProviderName };

// Each app's OAuth provider configuration (docs/oauth.md). The Google client secret and the
// Apple .p8 key are sealed with MASTER_KEY, bound to (app, provider): a database dump shows neither, and
// a sealed value copied to another app's row does not open.

export type ProviderConfigDeps = Pick<Deps, 'db' | 'clock' | 'masterKey' | 'masterKeys'>;

export const PROVIDERS: readonly OAuthProviderName[] = ['google', 'apple'];
export const isProvider = (name: string): name is OAuthProviderName => (PROVIDERS as readonly string[]).includes(name);

export const DEFAULT_SCOPES: Record<OAuthProviderName, string[]> = {
  google: ['openid', 'email', 'profile'],
  // Apple only sends the name (in the first form_post) when `name` is asked for.
  apple: ['openid', 'email', 'name'],
};

const REDACTED = '****' as const;
export const providerSecretBinding = (appId: string, provider: OAuthProviderName) => `oauth-provider:${appId}:${provider}`;

/** What the API shows of a configuration: every secret as "****". */
export interface ProviderView {
  provider: OAuthProviderName;
  client_id: string;
  client_secret?: typeof REDACTED;
  team_id?: string;
  key_id?: string;
  private_key?: typeof REDACTED;
  scopes: string[];
  configured_at: string;
  updated_at: string;
}

function view(row: OAuthProviderRow): ProviderView {
  const common = { provider: row.provider, client_id: row.client_id, scopes: JSON.parse(row.scopes) as string[], configured_at: row.configured_at, updated_at: row.updated_at };
  return row.provider === 'google'
    ? { ...common, client_secret: REDACTED }
    : { ...common, team_id: row.team_id ?? '', key_id: row.key_id ?? '', private_key: REDACTED };
}

async function save(deps: ProviderConfigDeps, appId: string, provider: OAuthProviderName, input: { clientId: string; secret: string; teamId?: string; keyId?: string; scopes: string[] }) {
  const now = iso(deps.clock.now());
  await providers.upsertOAuthProvider(deps.db, {
    app_id: appId,
    provider,
    client_id: input.clientId,
    secret_sealed: seal(deps.masterKey, input.secret, providerSecretBinding(appId, provider)),
    team_id: input.teamId ?? null,
    key_id: input.keyId ?? null,
    scopes: JSON.stringify(input.scopes),
    configured_at: now,
    updated_at: now,
  });
  return view((await providers.findOAuthProvider(deps.db, appId, provider))!);
}

/** Configures Google sign-in (replacing an earlier configuration). `openid` is always among the scopes. */
export function configureGoogle(deps: ProviderConfigDeps, appId: string, input: { client_id: string; client_secret: string; scopes?: string[] }) {
  const scopes = input.scopes && input.scopes.length > 0 ? [...new Set(['openid', ...input.scopes])] : DEFAULT_SCOPES.google;
  return save(deps, appId, 'google', { clientId: input.client_id, secret: input.client_secret, scopes });
}

/** Configures Apple sign-in; the .p8 key must parse as an ES256 key (else 400), so a typo fails here, not at a user's sign-in. */
export function configureApple(deps: ProviderConfigDeps, appId: string, input: { client_id: string; team_id: string; key_id: string; private_key: string }) {
  try {
    parseAppleKey(input.private_key);
  } catch (error) {
    throw badRequest((error as Error).message);
  }
  return save(deps, appId, 'apple', { clientId: input.client_id, secret: input.private_key, teamId: input.team_id, keyId: input.key_id, scopes: DEFAULT_SCOPES.apple });
}

export async function listProviders(deps: ProviderConfigDeps, appId: string): Promise<ProviderView[]> {
  return (await providers.listOAuthProviders(deps.db, appId)).map(view);
}

/** Removes the app's configuration of the provider; 404 when there is none. */
export async function removeProvider(deps: ProviderConfigDeps, appId: string, provider: OAuthProviderName): Promise<void> {
  if (!(await providers.deleteOAuthProvider(deps.db, appId, provider))) throw notFound(`${provider} is not configured for this application`);
}

/**
 * How to talk to the issuer as this app: the opened client secret (Google) or a client-secret JWT
 * signed with the opened Apple key.
 */
export async function clientSettings(
  deps: Pick<Deps, 'config' | 'masterKey' | 'masterKeys'>,
  appleSecrets: AppleClientSecrets,
  row: OAuthProviderRow,
): Promise<ClientSettings> {
  const secret = open(deps.masterKeys, row.secret_sealed, providerSecretBinding(row.app_id, row.provider));
  if (row.provider === 'google') {
    return { issuer: deps.config.googleIssuer, clientId: row.client_id, auth: { method: 'client_secret_basic', secret } };
  }
  const jwt = await appleSecrets.secretFor(row.app_id, {
    clientId: row.client_id,
    teamId: row.team_id ?? '',
    keyId: row.key_id ?? '',
    privateKeyPem: secret,
    audience: deps.config.appleIssuer,
  });
  return { issuer: deps.config.appleIssuer, clientId: row.client_id, auth: { method: 'client_secret_post', secret: jwt } };
}
