// The finishing pass over the OpenAPI document @fastify/swagger builds from the route schemas, for what a
// route schema cannot say itself: where the API lives, which routes need no credential, how an object
// key is named, what a raw upload body is. Generated clients (openapi-typescript + openapi-fetch,
// openapi-generator) work from the result; `@redocly/cli lint` checks it in the suite.

import { hoistComponents } from './openapi-components.js';

type Json = Record<string, unknown>;
interface Parameter extends Json {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}
interface Operation extends Json {
  operationId?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: unknown;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * A stable operationId for a route that does not name one: the method and the path's words in camelCase
 * (`DELETE /v1/me/sessions/{session_id}` → `deleteMeSessionsBySessionId`). Routes name their own where a
 * better verb exists; this only keeps every operation addressable.
 */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((segment) => segment !== '' && segment !== 'v1')
    .flatMap((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return param ? ['by', ...param[1]!.split(/[^A-Za-z0-9]+/)] : segment.split(/[^A-Za-z0-9]+/);
    })
    .filter(Boolean);
  return [method, ...words].map((word, i) => (i === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1))).join('');
}

/**
 * Object keys may hold `/`, so the routes match them with Fastify's wildcard (`/objects/*`); the document
 * names that parameter `key`, the name a client passes (a client that encodes `/` as `%2F` reaches the
 * same object: the wildcard is decoded before the route sees it).
 */
const WILDCARD = '{*}';

/** A body field the server fills with its default when absent is not required of the client. */
function optionalDefaults(requestBody: unknown): void {
  const content = (requestBody as { content?: Record<string, { schema?: Json }> } | undefined)?.content ?? {};
  for (const { schema } of Object.values(content)) {
    const properties = (schema?.properties ?? {}) as Record<string, Json>;
    if (!Array.isArray(schema?.required)) continue;
    schema.required = (schema.required as string[]).filter((name) => !(properties[name] && 'default' in properties[name]));
    if ((schema.required as string[]).length === 0) delete schema.required;
  }
}

/**
 * An object's bytes come back under the type they were stored with, not JSON: a generated client reads them
 * as binary (openapi-fetch: `parseAs: 'arrayBuffer'`, 'blob' or 'text') instead of failing to parse JSON.
 */
function declareBinaryAnswers(operation: Operation): void {
  const responses = (operation as { responses?: Record<string, Json> }).responses ?? {};
  for (const status of ['200', '206']) {
    const answer = responses[status];
    if (!answer) continue;
    answer.content = { '*/*': { schema: { type: 'string', format: 'binary', description: answer.description } } };
  }
}

/** A redirect's answer is its Location: named as a header, so a client knows where the browser goes. */
function declareRedirects(operation: Operation): void {
  const responses = (operation as { responses?: Record<string, Json> }).responses ?? {};
  for (const [status, answer] of Object.entries(responses)) {
    if (!['301', '302', '303', '307', '308'].includes(status)) continue;
    delete answer.content;
    answer.headers = { Location: { description: 'where the browser goes next', schema: { type: 'string', format: 'uri' } } };
  }
}

/**
 * The completed document. It works on a copy: the generated document may share objects with the routes'
 * own schemas, which must stay as the routes declared them.
 */
export function finishOpenApi(generated: Json, publicBaseUrl: string): Json {
  const document = structuredClone(generated);
  document.servers = [{ url: publicBaseUrl, description: 'this Gatehouse (PUBLIC_BASE_URL)' }];
  const info = (document.info ?? {}) as Json;
  info.license ??= { name: 'MIT', identifier: 'MIT' };
  document.info = info;

  const paths: Record<string, Json> = {};
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    const named = path.replace(WILDCARD, '{key}');
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      if (!operation) continue;
      operation.operationId ??= derivedOperationId(method, named);
      // A route without a security requirement is public (health, JWKS, email links, OAuth callbacks):
      // say so, rather than leave clients to guess that a global default applies.
      operation.security ??= [];
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path' && parameter.name === '*') {
          parameter.name = 'key';
          parameter.description ??= 'the object key: 1-1024 bytes, may hold /';
        }
        // The server fills a default in: the client may leave the parameter out.
        if (parameter.in !== 'path' && parameter.schema && 'default' in parameter.schema) parameter.required = false;
      }
      optionalDefaults(operation.requestBody);
      declareRedirects(operation);
      if (method === 'get' && named !== path) declareBinaryAnswers(operation);
      if (method === 'put' && named !== path && operation.requestBody === undefined) {
        operation.requestBody = {
          required: true,
          description: "the object's bytes; their Content-Type is stored as the object's type",
          content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
        };
      }
    }
    paths[named] = item;
  }
  document.paths = paths;
  hoistComponents(document);
  return document;
}
