import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type preHandlerHookHandler, type preValidationHookHandler, type RouteOptions } from 'fastify';
import type { Deps } from './deps.js';
import { ApiError } from './errors.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './http/plugins/errors.js';
import { corsHook } from './http/plugins/cors.js';
import { createGuards, type Guards } from './http/plugins/guards.js';
import { registerMetrics, RequestStats } from './http/plugins/metrics.js';
import { outageReporter } from './http/plugins/unavailable.js';
import { genReqId } from './http/plugins/request-id.js';
import { finishOpenApi } from './http/openapi.js';
import { VERSION } from './http/routes/health.js';
import { routeNamingHook } from './observability/tracing.js';
import { docsUiRoutes } from './http/routes/docs-ui.js';
import { BadJsonBody, parseJsonBody } from './http/json-body.js';
import { registerRoutes } from './http/routes/index.js';
import { closeBodySchema, unknownBodyField } from './http/unknown-fields.js';
import { ErrorBody } from './http/schemas.js';
import type { Http } from './http/types.js';
import { accessLine } from './observability/access-line.js';
import { requestLoggerFactory } from './observability/logger.js';

const AJV_OPTIONS = { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false, strictNumbers: true } as const;

/**
 * Query strings, path parameters and headers are text, so their numbers and booleans are coerced from it.
 * A JSON body carries real types: `"5"` is not an integer there (a cap, an amount, an expiry sent as a
 * string is 400, not silently converted), so bodies validate without coercion.
 */
function strictBodyValidator(): BuildCompilerFromPool {
  // One pool per app: every route with the same shared schemas and options gets the same Ajv instance
  // (a new pool per call would build two Ajv instances, meta-schemas and all, for every route).
  const build = AjvCompiler() as unknown as (schemas: unknown, options: object) => (route: { httpPart?: string }) => unknown;
  return ((externalSchemas: unknown, serverOptions: { customOptions?: object }) => {
    const coercing = build(externalSchemas, serverOptions);
    // removeAdditional off: an unknown body field fails validation by name (http/unknown-fields.ts) instead
    // of being dropped; unknown query parameters are still ignored.
    const strict = build(externalSchemas, { ...serverOptions, customOptions: { ...serverOptions.customOptions, coerceTypes: false, removeAdditional: false } });
    return (route: { httpPart?: string }) => (route.httpPart === 'body' ? strict : coercing)(route);
  }) as unknown as BuildCompilerFromPool;
}

/** Builds the HTTP application (plugins and routes). Never listens: main.ts does, tests may inject. */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  return Array.isArray(value) && value.some((item) => typeof item === 'string' && item.includes('\0'));
}

/** The 400 for a non-finite number or a NUL character in one part of a request (query, params, body). */
function unsafeInput(part: unknown): ApiError | undefined {
  if (!part || typeof part !== 'object') return undefined;
  for (const name in part) {
    const value = (part as Record<string, unknown>)[name];
    if (typeof value === 'number' && !Number.isFinite(value)) return new ApiError(400, 'validation_failed', `${name} must be a finite number`);
    if (hasNul(value)) return new ApiError(400, 'validation_failed', `${name} must not contain a NUL character`);
  }
  return undefined;
}

/** A body-less POST validates as an empty object, so schemas name the missing fields. */
const emptyBodyIsEmptyObject: preValidationHookHandler = (request, _reply, done) => {
  if (request.body === undefined) request.body = {};
  done();
};

/** A route without a body schema takes no body fields (docs/api.md: an unknown field is a 400 naming it). */
const refuseBodyFields: preValidationHookHandler = (request, _reply, done) => {
  const detail = unknownBodyField(request.body, request.headers['content-type']);
  done(detail === undefined ? undefined : new ApiError(400, 'validation_failed', detail));
};

/**
 * Ajv coerces a query or path string such as "1e309" to Infinity and then skips its range checks
 * (strictNumbers guards only real JSON numbers): refuse any non-finite number after validation.
 * PostgreSQL text cannot hold a NUL character (SQLite can): refuse it in every string a request
 * brings, so both databases answer the same 400 instead of PostgreSQL's 500. Bodies: the JSON parser.
 */
const refuseUnsafeInput: preHandlerHookHandler = (request, _reply, done) => {
  done(unsafeInput(request.query) ?? unsafeInput(request.params) ?? unsafeInput(request.body));
};

/**
 * Whether a route reads anything a request brings besides headers: path parameters, a query or body
 * schema, or a body. A GET without parameters or query schema (health, the JWKS document, metrics)
 * reads none, and every handler that reads the query declares its schema.
 */
function takesInput(route: RouteOptions, methods: string[]): boolean {
  const schema = route.schema ?? {};
  return (
    /[:*]/.test(route.url) ||
    schema.querystring !== undefined ||
    schema.params !== undefined ||
    schema.body !== undefined ||
    methods.some((method) => method !== 'GET' && method !== 'HEAD')
  );
}

/** The route's hooks of one kind with `hook` first, once. */
function first<H>(hook: H, hooks: H | H[] | undefined): H[] {
  const list = hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
  return list.includes(hook) ? list : [hook, ...list];
}

export async function buildApp(deps: Deps): Promise<Http> {
  const app = createFastify(deps);
  const guards = createGuards(deps);
  const requests = addRequestHooks(app, deps, guards);
  // With traces on, each request's span is named by its route template; off, no hook at all.
  const nameSpan = routeNamingHook();
  if (nameSpan) app.addHook('onRequest', nameSpan);
  const outages = outageReporter(deps);
  registerErrorHandling(app, { onUnavailable: outages.database, onOutage: outages.outage });
  parseJsonBodies(app);
  app.addSchema(ErrorBody);

  // Cookies are parsed and set by the routes that use them (http/cookies.ts), with the plugin's parser and
  // serializer: registered in a scope without routes, its parsing hook and Set-Cookie writer run on no request.
  await app.register(async (noRoutes) => {
    await noRoutes.register(cookie, { hook: false });
  });
  await registerOpenApi(app, deps);
  // The reference UI at /docs loads on its first request (src/http/routes/docs-ui.ts).
  docsUiRoutes(app);

  registerMetrics(app, deps, requests);
  registerRoutes(app, deps, guards);
  return app;
}

function createFastify(deps: Deps): Http {
  return Fastify({
    loggerInstance: deps.log,
    // One line per request, written when it completes (below), instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // request.log is made on its first use: most requests log only the access line below.
    childLoggerFactory: requestLoggerFactory as never,
    genReqId,
    trustProxy: deps.config.trustProxy as boolean | string[],
    bodyLimit: 1024 * 1024,
    // Path parameters longer than this answer 414 {detail, code}; ids and object keys fit (keys are 1024 bytes
    // at most, percent-encoded up to three times that).
    routerOptions: { maxParamLength: 4096 },
    frameworkErrors,
    clientErrorHandler,
    // strictNumbers: Infinity and NaN (`limit=1e309`, a JSON 1e400) are not numbers here.
    ajv: { customOptions: AJV_OPTIONS },
    schemaController: { compilersFactory: { buildValidator: strictBodyValidator() } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as Http;
}

/** The hooks of every request and of every route; answers the request counters that /metrics reads. */
function addRequestHooks(app: Http, deps: Deps, guards: Guards): RequestStats {
  // Every request runs these two hooks, both callback-style (an async
  // hook costs a promise and a microtask hop). Each hook phase Fastify runs costs every request (seven
  // no-op hooks in five phases: about 2.5 µs on a bare Fastify hello, bench/README.md), so what only some
  // routes need is attached to those routes (onRoute below).
  const cors = corsHook(deps, guards);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    cors(request, reply, done);
  });
  const access = accessLine(deps.log);
  const requests = new RequestStats();
  app.addHook('onResponse', (request, reply, done) => {
    access(request, reply.statusCode, reply.elapsedTime);
    requests.record(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (methods.includes('POST')) route.preValidation = first(emptyBodyIsEmptyObject, route.preValidation);
    if (route.schema?.body) route.schema = { ...route.schema, body: closeBodySchema(route.schema.body) };
    else if (methods.some((method) => method !== 'GET' && method !== 'HEAD')) route.preValidation = [...[route.preValidation ?? []].flat(), refuseBodyFields];
    if (takesInput(route, methods)) route.preHandler = first(refuseUnsafeInput, route.preHandler);
  });
  return requests;
}

function parseJsonBodies(app: Http): void {
  // An empty JSON body is no body (clients send the header on body-less POSTs such as logout); the rest
  // of the rules (depth, NUL, prototype keys) are parseJsonBody's.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      const detail = error instanceof BadJsonBody ? error.message : 'body is not valid JSON';
      done(new ApiError(400, 'validation_failed', detail), undefined);
    }
  });
}

async function registerOpenApi(app: Http, deps: Deps): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Gatehouse', version: VERSION, description: 'Multi-tenant authentication service' },
      components: {
        securitySchemes: {
          publishable: { type: 'apiKey', in: 'header', name: 'X-Publishable-Key' },
          secret: { type: 'http', scheme: 'bearer', description: 'sk_... secret key' },
          session: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          console: { type: 'http', scheme: 'bearer', description: 'a console access token, a tenant API token tk_..., or ADMIN_TOKEN (docs/management.md); with X-App-Id on Secret routes' },
        },
      },
    },
    // Shared schemas keep their $id as their name (`components.schemas.Error`), so generated types read
    // `components['schemas']['Error']` rather than the plugin's `def-0`.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transformObject: (documentObject) => finishOpenApi((documentObject as { openapiObject: Record<string, unknown> }).openapiObject, deps.config.publicBaseUrl),
  });
}
