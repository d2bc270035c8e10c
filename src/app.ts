import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import type { Deps } from './deps.js';
import { ApiError } from './errors.js';
import { registerErrorHandling } from './http/plugins/errors.js';
import { registerCors } from './http/plugins/cors.js';
import { createGuards } from './http/plugins/guards.js';
import { registerMetrics } from './http/plugins/metrics.js';
import { genReqId } from './http/plugins/request-id.js';
import { VERSION } from './http/routes/health.js';
import { registerRoutes } from './http/routes/index.js';
import { ErrorBody } from './http/schemas.js';
import type { Http } from './http/types.js';

/** Builds the HTTP application (plugins and routes). Never listens: main.ts does, tests may inject. */
export async function buildApp(deps: Deps): Promise<Http> {
  const app = Fastify({
    loggerInstance: deps.log,
    genReqId,
    trustProxy: deps.config.trustProxy as boolean | string[],
    bodyLimit: 1024 * 1024,
    ajv: { customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as Http;

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // A body-less POST validates as an empty object, so schemas name the missing fields.
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.method === 'POST') request.body = {};
  });
  registerErrorHandling(app);
  // An empty JSON body is no body (clients send the header on body-less POSTs such as logout);
  // keys that could poison prototypes are dropped.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body as string, (key, value) => (key === '__proto__' || key === 'constructor' ? undefined : value)));
    } catch {
      done(new ApiError(400, 'validation_failed', 'body is not valid JSON'), undefined);
    }
  });
  app.addSchema(ErrorBody);

  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Gatehouse', version: VERSION, description: 'Multi-tenant authentication service' },
      components: {
        securitySchemes: {
          publishable: { type: 'apiKey', in: 'header', name: 'X-Publishable-Key' },
          secret: { type: 'http', scheme: 'bearer', description: 'sk_... secret key' },
          session: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  const guards = createGuards(deps);
  await registerCors(app, deps, guards);
  registerMetrics(app, deps);
  registerRoutes(app, deps, guards);
  return app;
}
