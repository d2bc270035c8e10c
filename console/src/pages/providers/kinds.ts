// The OAuth providers an app may configure (contract sections 13 and 20, docs/oauth.md), and what each
// one's PUT /v1/oauth/providers/{provider} takes. Secrets (client_secret, Apple's private_key) go in only:
// the API answers "****" for them and the console never fills them back in; an edit that leaves them empty
// omits them, and the API keeps the stored ones.
import type { Body, Ok } from '@gatehouse/api-types';

export type Kind = 'google' | 'apple' | 'github' | 'microsoft' | 'oidc';

/** A provider as GET /v1/oauth/providers lists it. */
export type Provider = Ok<'listOAuthProviders'>['providers'][number];

export const KINDS: [Kind, string][] = [
  ['google', 'Google'],
  ['apple', 'Sign in with Apple'],
  ['github', 'GitHub'],
  ['microsoft', 'Microsoft'],
  ['oidc', 'Any OpenID Connect provider (by issuer)'],
];

export const kindOf = (provider: string): Kind => (provider.startsWith('oidc-') ? 'oidc' : (provider as Kind));

/** The callback to register at the provider (docs/oauth.md): the same for every app of this Gatehouse. */
export const redirectUri = (provider: string) => `${location.origin}/v1/oauth/${provider}/callback`;

/** The form's fields, as text. */
export interface Draft {
  name: string;
  client_id: string;
  client_secret: string;
  scopes: string;
  tenant: string;
  issuer: string;
  display_name: string;
  team_id: string;
  key_id: string;
  private_key: string;
}

export const emptyDraft = (): Draft => ({ name: '', client_id: '', client_secret: '', scopes: '', tenant: 'common', issuer: '', display_name: '', team_id: '', key_id: '', private_key: '' });

/** A configured provider's fields for editing: everything but its secrets. */
export const draftOf = (p: Provider): Draft => ({
  ...emptyDraft(),
  name: p.provider.startsWith('oidc-') ? p.provider.slice(5) : '',
  client_id: p.client_id,
  scopes: p.scopes.join(' '),
  tenant: p.tenant ?? 'common',
  issuer: p.issuer ?? '',
  display_name: p.display_name,
  team_id: p.team_id ?? '',
  key_id: p.key_id ?? '',
});

/** The provider's name in the API (`oidc-<name>` for a custom one). */
export const providerName = (kind: Kind, draft: Draft) => (kind === 'oidc' ? `oidc-${draft.name.trim()}` : kind);

/** What PUT /v1/oauth/providers/{provider} takes, by kind (GitHub's is Google's). */
type ProviderBody = Body<'putGoogleProvider'> | Body<'putGitHubProvider'> | Body<'putMicrosoftProvider'> | Body<'putAppleProvider'> | Body<'putCustomOAuthProvider'>;

/**
 * The PUT body of this kind (scopes: space- or comma-separated; empty: the provider's default). A secret left
 * empty is not sent: on an edit the API keeps the stored one (a new provider's form requires it).
 */
export function bodyOf(kind: Kind, d: Draft): ProviderBody {
  const scopes = d.scopes.split(/[\s,]+/).filter(Boolean);
  const withScopes = scopes.length ? { scopes } : {};
  const secret = d.client_secret ? { client_secret: d.client_secret } : {};
  switch (kind) {
    case 'apple':
      return { client_id: d.client_id.trim(), team_id: d.team_id.trim(), key_id: d.key_id.trim(), ...(d.private_key.trim() ? { private_key: d.private_key } : {}) };
    case 'microsoft':
      return { client_id: d.client_id.trim(), ...secret, tenant: d.tenant.trim() };
    case 'oidc':
      return { issuer: d.issuer.trim(), client_id: d.client_id.trim(), ...secret, display_name: d.display_name.trim(), ...withScopes };
    default:
      return { client_id: d.client_id.trim(), ...secret, ...withScopes };
  }
}
