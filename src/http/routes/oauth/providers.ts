import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.js';
import { notFound } from '../../../errors.js';
import {
  configureApple,
  configureCustom,
  configureGitHub,
  configureGoogle,
  configureMicrosoft,
  isCustom,
  isProvider,
  listProviders,
  listPublicProviders,
  removeProvider,
  type ConfigChange,
} from '../../../services/oauth/providers.js';
import { eventContext } from '../../event-context.js';
import type { Guards } from '../../plugins/guards.js';
import { deleted, errors, ListOf, StatusBody, Timestamp } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';

// docs/oauth.md: each app's provider configuration (Secret). Secrets go in, "****" comes out. The public
// list (Publishable) names what a sign-in page may offer, nothing more.

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 255, pattern: '^\\S+$', description });
const Scope = Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' });
// Optional on an update: a provider already configured keeps its stored secret (or Apple key) when the
// PUT omits it; a first PUT needs it (400). An empty string is still a 400.
const Secret = Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'required on the first PUT; omitted on a later one: the stored secret is kept' }));
const Scopes = (description: string) => Type.Optional(Type.Array(Scope, { maxItems: 20, description }));

const GoogleBody = Type.Object({
  client_id: Id('the OAuth client id from the Google Cloud console'),
  client_secret: Secret,
  scopes: Scopes('default openid email profile; openid is always added'),
});

const GitHubBody = Type.Object({
  client_id: Id("the GitHub OAuth app's client id"),
  client_secret: Secret,
  scopes: Scopes('default read:user user:email; user:email is always added'),
});

const MicrosoftBody = Type.Object({
  client_id: Id('the application (client) id of the Entra app registration'),
  client_secret: Secret,
  tenant: Type.String({
    maxLength: 255,
    pattern: '^(common|organizations|consumers|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+)$',
    description: 'common, organizations, consumers, or a tenant id or domain',
  }),
});

const CustomBody = Type.Object({
  issuer: Type.String({ minLength: 1, maxLength: 2048, description: 'the issuer URL; its discovery document is read at /.well-known/openid-configuration' }),
  client_id: Id('the client id at the issuer'),
  client_secret: Secret,
  scopes: Scopes('default openid email profile; openid is always added'),
  display_name: Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: 'what a sign-in page shows ("Sign in with …")' }),
});

const ProviderBody = Type.Object({
  provider: Type.String({ description: 'google, apple, github, microsoft or oidc-<name>' }),
  display_name: Type.String(),
  client_id: Type.String(),
  client_secret: Type.Optional(Type.Literal('****')),
  team_id: Type.Optional(Type.String()),
  key_id: Type.Optional(Type.String()),
  private_key: Type.Optional(Type.Literal('****')),
  tenant: Type.Optional(Type.String()),
  issuer: Type.Optional(Type.String()),
  scopes: Type.Array(Type.String()),
  configured_at: Timestamp,
  updated_at: Timestamp,
}, { title: 'OAuthProvider' });

/** The app and who changed its configuration (the secret key), for the change's event. */
const changeOf = (request: FastifyRequest): ConfigChange => ({ app: request.application!, context: eventContext(request) });

const unknownProvider = (provider: string) => notFound(`unknown provider "${provider}" (google, apple, github, microsoft or oidc-<name>)`);

export function oauthProviderRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'oauth');

  app.get(
    '/v1/oauth/providers',
    route.secret({
      operationId: 'listOAuthProviders',
      summary: "The app's configured OAuth providers, secrets shown as ****",
      response: { 200: ListOf('providers', ProviderBody), ...errors(401, 403) },
    }),
    async (request) => ({ providers: await listProviders(deps, request.application!.id) }),
  );

  app.get(
    '/v1/oauth/providers/public',
    route.publishable({
      operationId: 'listPublicOAuthProviders',
      summary: 'The providers a sign-in page may offer: name and display name only',
      response: { 200: Type.Object({ providers: Type.Array(Type.Object({ provider: Type.String(), display_name: Type.String() })) }), ...errors(401) },
    }),
    async (request) => ({ providers: await listPublicProviders(deps, request.application!.id) }),
  );

  const put = <B extends typeof GoogleBody | typeof GitHubBody | typeof MicrosoftBody>(name: string, operationId: string, summary: string, body: B, configure: (change: ConfigChange, body: any) => Promise<unknown>) =>
    app.put(
      `/v1/oauth/providers/${name}`,
      route.secret({ operationId, summary, body, response: { 200: ProviderBody, ...errors(400, 401, 403) } }),
      async (request) => configure(changeOf(request), request.body) as never,
    );
  put('google', 'putGoogleProvider', 'Configure Google sign-in', GoogleBody, (change, body) => configureGoogle(deps, change, body));
  put('github', 'putGitHubProvider', 'Configure GitHub sign-in (OAuth 2.0; the primary verified email from the emails API)', GitHubBody, (change, body) => configureGitHub(deps, change, body));
  put('microsoft', 'putMicrosoftProvider', 'Configure Microsoft sign-in (issuer checked per tenant)', MicrosoftBody, (change, body) => configureMicrosoft(deps, change, body));

  app.put(
    '/v1/oauth/providers/apple',
    route.secret({
      operationId: 'putAppleProvider',
      summary: 'Configure Sign in with Apple (the .p8 key must parse as ES256)',
      body: Type.Object({
        client_id: Id('the Services ID (e.g. com.example.web)'),
        team_id: Type.String({ pattern: '^[A-Za-z0-9]{1,64}$', description: 'the Apple developer team id' }),
        key_id: Type.String({ pattern: '^[A-Za-z0-9]{1,64}$', description: 'the id of the Sign in with Apple key' }),
        private_key: Type.Optional(Type.String({ minLength: 1, maxLength: 8192, description: 'PEM of the .p8 key (ES256); required on the first PUT, omitted on a later one: the stored key is kept' })),
      }),
      response: { 200: ProviderBody, ...errors(400, 401, 403) },
    }),
    async (request) => configureApple(deps, changeOf(request), request.body),
  );

  app.put(
    '/v1/oauth/providers/:provider',
    route.secret({
      operationId: 'putCustomOAuthProvider',
      summary: 'Configure a custom OpenID Connect provider oidc-<name> (any issuer by discovery; at most 20 per app)',
      params: Type.Object({ provider: Type.String({ maxLength: 64, description: 'oidc-<name>: ^oidc-[a-z0-9-]{1,40}$' }) }),
      body: CustomBody,
      response: { 200: ProviderBody, ...errors(400, 401, 403, 404, 409) },
    }),
    async (request) => {
      const { provider } = request.params;
      if (!isCustom(provider)) throw unknownProvider(provider);
      return configureCustom(deps, changeOf(request), provider, request.body);
    },
  );

  app.delete(
    '/v1/oauth/providers/:provider',
    route.secret({
      operationId: 'deleteOAuthProvider',
      summary: "Remove the provider's configuration",
      params: Type.Object({ provider: Type.String({ maxLength: 64 }) }),
      response: { 200: StatusBody('deleted'), ...errors(401, 403, 404) },
    }),
    async (request) => {
      const { provider } = request.params;
      if (!isProvider(provider)) throw unknownProvider(provider);
      return deleted(removeProvider(deps, changeOf(request), provider));
    },
  );
}
