import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiReferenceHtml, type OpenApiDocument } from '../pages/api-reference.js';
import { sendHtml } from '../pages/page.js';
import type { Http } from '../types.js';

const PREFIX = '/docs/explorer';
// Hop-by-hop and length headers are the outer reply's own.
const SKIPPED_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

/**
 * The API reference at /docs: a page rendered once from this server's OpenAPI document (pages/api-reference.ts),
 * plain accessible HTML with no script.
 *
 * Swagger UI at /docs/explorer (@fastify/swagger-ui), for trying calls in the browser, loaded on the first request for it rather than at
 * start-up: most servers never serve it, and its modules and static routes cost memory in every process.
 * The first hit builds a small Fastify instance holding the UI over this server's OpenAPI document; every
 * /docs request is answered by it (in-process `inject`).
 */
export function docsUiRoutes(app: Http): void {
  let ui: Promise<FastifyInstance> | undefined;

  async function build(): Promise<FastifyInstance> {
    const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
      import('fastify'),
      import('@fastify/swagger'),
      import('@fastify/swagger-ui'),
    ]);
    const instance = Fastify({ logger: false });
    await instance.register(swagger, { mode: 'static', specification: { document: app.swagger() as never } });
    await instance.register(swaggerUi, { routePrefix: PREFIX });
    await instance.ready();
    return instance;
  }

  async function handler(request: FastifyRequest, reply: FastifyReply) {
    ui ??= build().catch((error: unknown) => {
      ui = undefined;
      throw error;
    });
    const response = await (await ui).inject({ method: request.method as 'GET', url: request.url, headers: request.headers });
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && !SKIPPED_HEADERS.has(name)) reply.header(name, value);
    }
    return reply.code(response.statusCode).send(response.rawPayload);
  }

  let reference: string | undefined;
  app.get('/docs', { schema: { hide: true } }, async (_request, reply) => {
    reference ??= apiReferenceHtml(app.swagger() as unknown as OpenApiDocument);
    return sendHtml(reply, 200, reference);
  });
  app.get(PREFIX, { schema: { hide: true } }, handler);
  app.get(`${PREFIX}/*`, { schema: { hide: true } }, handler);
}
