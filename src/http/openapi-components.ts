// The OpenAPI document names what it repeats. @fastify/swagger writes every route's schemas out inline, so
// an application, a user or an error answer would stand again in every operation that answers it, and so
// would every type generated from the document. This pass, part of finishOpenApi, moves them into
// `components` and leaves a `$ref` in their place:
// - a schema with a `title` (given where the record is defined, e.g. `Type.Object({...}, { title: 'App' })`)
//   becomes `components.schemas[title]`;
// - a response that stands the same in two operations or more, and whose JSON body is a named schema,
//   becomes `components.responses[that name]` (every error answer: `components.responses.Error`).
// Only the document changes: the routes validate and serialise with their own schemas, as declared.

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const SCHEMAS = '#/components/schemas/';

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every operation of the document. */
function operations(document: Json): Json[] {
  const found: Json[] = [];
  for (const item of Object.values((document.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) if (isObject(item[method])) found.push(item[method]);
  }
  return found;
}

/**
 * The schema with every titled schema in it (itself included) moved into `named`, children first, so a
 * named record that holds another one refers to it. Two different schemas under one title are a mistake
 * in the routes (a copy that kept its source's title): the document is not built.
 */
function hoistTitled(node: unknown, named: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistTitled(item, named));
  if (!isObject(node)) return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node)) copy[key] = hoistTitled(value, named);
  const title = copy.title;
  if (typeof title !== 'string' || !/^[A-Za-z][A-Za-z0-9]*$/.test(title)) return copy;
  const existing = named[title];
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(copy)) {
    throw new Error(`OpenAPI: two different schemas are titled ${title}; give each its own title\n${JSON.stringify(existing)}\n${JSON.stringify(copy)}`);
  }
  named[title] = copy;
  return { $ref: SCHEMAS + title };
}

/** The name of the schema a response's JSON body is, when it is a named one. */
function bodyName(response: Json): string | undefined {
  const content = response.content as Record<string, { schema?: Json }> | undefined;
  const keys = Object.keys(content ?? {});
  const ref = keys.length === 1 && keys[0] === 'application/json' ? content!['application/json']!.schema?.$ref : undefined;
  return typeof ref === 'string' && ref.startsWith(SCHEMAS) ? ref.slice(SCHEMAS.length) : undefined;
}

/** Responses that stand the same twice or more, each under its body's name, move to `components.responses`. */
function hoistResponses(all: Json[], components: Json): void {
  const uses = new Map<string, number>();
  for (const operation of all) {
    for (const response of Object.values((operation.responses ?? {}) as Record<string, Json>)) {
      const key = JSON.stringify(response);
      uses.set(key, (uses.get(key) ?? 0) + 1);
    }
  }
  const responses = (components.responses ?? {}) as Record<string, Json>;
  const nameOf = new Map<string, string>();
  for (const [key, count] of uses) {
    const response = JSON.parse(key) as Json;
    const name = bodyName(response);
    if (count < 2 || name === undefined) continue;
    if (responses[name] !== undefined && JSON.stringify(responses[name]) !== key) continue;
    responses[name] = response;
    nameOf.set(key, name);
  }
  for (const operation of all) {
    const answers = (operation.responses ?? {}) as Record<string, Json>;
    for (const [status, response] of Object.entries(answers)) {
      const name = nameOf.get(JSON.stringify(response));
      if (name !== undefined) answers[status] = { $ref: `#/components/responses/${name}` };
    }
  }
  if (Object.keys(responses).length) components.responses = sorted(responses);
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Moves the document's named schemas and repeated responses into `components`, in place. */
export function hoistComponents(document: Json): void {
  const components = (document.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, unknown>;
  const named: Record<string, unknown> = {};
  const all = operations(document);
  for (const operation of all) {
    for (const part of ['parameters', 'requestBody', 'responses'] as const) {
      if (operation[part] !== undefined) operation[part] = hoistTitled(operation[part], named);
    }
  }
  for (const [title, schema] of Object.entries(named)) {
    if (schemas[title] !== undefined && JSON.stringify(schemas[title]) !== JSON.stringify(schema)) {
      throw new Error(`OpenAPI: the schema titled ${title} is not the shared schema of that name`);
    }
    schemas[title] = schema;
  }
  components.schemas = sorted(schemas);
  hoistResponses(all, components);
  document.components = components;
}
