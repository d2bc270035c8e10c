import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { notFound } from '../../../errors.js';
import { configureApple, configureGoogle, isProvider, listProviders, removeProvider } from '../../../services/oauth/providers.js';
import type { Guards } from '../../plugins/guards.js';
import { errors, StatusBody, Timestamp } from '../../schemas.js';
import type { Http } from '../../types.js';

// docs/oauth.md: each app's provider configuration (Secret). Secrets go
// in, "****" comes out.

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 255, pattern: '^\\S+$', description });
const Scope = Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' });

const GoogleBody = Type.Object({
  client_id: Id('the OAuth client id from the Google Cloud console'),
  client_secret: Type.String({ minLength: 1, maxLength: 1024 }),
  scopes: Type.Optional(Type.Array(Scope, { maxItems: 20, description: 'default openid email profile; openid is always added' })),
});

const AppleBody = Type.Object({
  client_id: Id('the Services ID (e.g. com.example.web)'),
  team_id: Type.String({ pattern: '^[A-Za-z0-9]{1,64}$', description: 'the Apple developer team id' }),
  key_id: Type.String({ pattern: '^[A-Za-z0-9]{1,64}$', description: 'the id of the Sign in with Apple key' }),
  private_key: Type.String({ minLength: 1, maxLength: 8192, description: 'PEM of the .p8 key (ES256)' }),
});

const ProviderBody = Type.Object({
  provider: Type.Union([Type.Literal('google'), Type.Literal('apple')]),
  client_id: Type.String(),
  client_secret: Type.Optional(Type.Literal('****')),
  team_id: Type.Optional(Type.String()),
  key_id: Type.Optional(Type.String()),
  private_key: Type.Optional(Type.Literal('****')),
  scopes: Type.Array(Type.String()),
  configured_at: Timestamp,
  updated_at: Timestamp,
});

const secretRoute = { tags: ['oauth'], security: [{ secret: [] }] };

export function oauthProviderRoutes(app: Http, deps: Deps, guards: Guards): void {
  app.get(
    '/v1/oauth/providers',
    {
      preHandler: guards.secret,
      schema: {
        operationId: 'listOAuthProviders',
        ...secretRoute,
        summary: "The app's configured OAuth providers, secrets shown as ****",
        response: { 200: Type.Object({ providers: Type.Array(ProviderBody) }), ...errors(401, 403) },
      },
    },
    async (request) => ({ providers: await listProviders(deps, request.application!.id) }),
  );

  app.put(
    '/v1/oauth/providers/google',
    {
      preHandler: guards.secret,
      schema: { operationId: 'putGoogleProvider', ...secretRoute, summary: 'Configure Google sign-in', body: GoogleBody, response: { 200: ProviderBody, ...errors(400, 401, 403) } },
    },
    async (request) => configureGoogle(deps, request.application!.id, request.body),
  );

  app.put(
    '/v1/oauth/providers/apple',
    {
      preHandler: guards.secret,
      schema: {
        operationId: 'putAppleProvider',
        ...secretRoute,
        summary: 'Configure Sign in with Apple (the .p8 key must parse as ES256)',
        body: AppleBody,
        response: { 200: ProviderBody, ...errors(400, 401, 403) },
      },
    },
    async (request) => configureApple(deps, request.application!.id, request.body),
  );

  app.delete(
    '/v1/oauth/providers/:provider',
    {
      preHandler: guards.secret,
      schema: {
        operationId: 'deleteOAuthProvider',
        ...secretRoute,
        summary: "Remove the provider's configuration",
        params: Type.Object({ provider: Type.String({ maxLength: 64 }) }),
        response: { 200: StatusBody('deleted'), ...errors(401, 403, 404) },
      },
    },
    async (request) => {
      const { provider } = request.params;
      if (!isProvider(provider)) throw notFound(`unknown provider "${provider}" (google or apple)`);
      await removeProvider(deps, request.application!.id, provider);
      return { status: 'deleted' as const };
    },
  );
}
