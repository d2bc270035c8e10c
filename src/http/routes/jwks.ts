import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { errors } from '../schemas.js';
import type { Http } from '../types.js';

const Jwk = Type.Object({
  kty: Type.Literal('RSA'),
  kid: Type.String(),
  use: Type.Literal('sig'),
  alg: Type.Literal('RS256'),
  n: Type.String(),
  e: Type.String(),
});

export function jwksRoutes(app: Http, deps: Deps): void {
  app.get(
    '/.well-known/jwks.json',
    {
      schema: {
        operationId: 'getJwks',
        tags: ['keys'],
        summary: 'Public keys of an application, for offline verification of access tokens',
        querystring: Type.Object({ app_id: Type.Optional(Type.String({ maxLength: 64 })) }),
        response: { 200: Type.Object({ keys: Type.Array(Jwk) }), ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      const appId = request.query.app_id;
      // The app and its keys in one statement; a paused tenant's apps still publish theirs (docs/billing.md).
      const keys = await deps.keys.jwks(appId ? { appId } : { domain: request.hostname.toLowerCase() });
      if (!keys) throw notFound(appId ? `application ${appId} not found` : 'no application is verified for this host');
      reply.header('cache-control', 'public, max-age=300');
      return { keys };
    },
  );
}
