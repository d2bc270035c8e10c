// Unknown body fields (docs/api.md): a field a route does not define is a 400 naming it, never dropped
// silently, so a misspelt `pasword` cannot pass as a password-less sign-in. Route schemas are written as
// TypeBox objects without saying so each time: closeBodySchema closes every object of a body schema when
// the route is registered (app.ts), and the error plugin names the field Ajv found.

type Schema = Record<string, unknown>;

const isObjectSchema = (schema: Schema) => schema.type === 'object' || 'properties' in schema;

/**
 * A copy of a body schema in which every object that does not say otherwise refuses other fields
 * (`additionalProperties: false`). An object that declares `additionalProperties` or `patternProperties`
 * (free-form records: a row's `data`, a passkey's browser response, an OAuth form_post's provider fields)
 * stays as written. The copy keeps only JSON keys (TypeBox's symbols are for its types, not for Ajv).
 */
export function closeBodySchema<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(closeBodySchema) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    // `default`, `const`, `enum` and `examples` hold values, not schemas.
    copy[key] = key === 'default' || key === 'const' || key === 'enum' || key === 'examples' ? value : closeBodySchema(value);
  }
  if (isObjectSchema(copy) && !('additionalProperties' in copy) && !('patternProperties' in copy)) copy.additionalProperties = false;
  return copy as T;
}

interface AjvError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
}

/** `users[0].email`, from a JSON pointer (`/users/0`) and a property name. */
function fieldName(instancePath: string, property?: string): string {
  const segments = instancePath.split('/').slice(1).map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (property !== undefined) segments.push(property);
  return segments.reduce((name, s) => (/^\d+$/.test(s) ? `${name}[${s}]` : name ? `${name}.${s}` : s), '');
}

/** `unknown field "pasword"` when a body's validation failed on a field its schema does not define. */
export function unknownFieldDetail(validation: readonly AjvError[] | undefined): string | undefined {
  for (const error of validation ?? []) {
    if (error.keyword === 'additionalProperties') return `unknown field "${fieldName(error.instancePath, String(error.params.additionalProperty))}"`;
    // A schema closed with `additionalProperties: {not: {}}` (the table routes') reports the field itself.
    if (error.keyword === 'not' && error.schemaPath.endsWith('/additionalProperties/not')) return `unknown field "${fieldName(error.instancePath)}"`;
  }
  return undefined;
}

/**
 * For a route that defines no body (logout, a DELETE): a JSON object sent anyway has only unknown fields,
 * and the first is named. An empty object, or a body of another type (none is parsed on these routes), passes.
 */
export function unknownBodyField(body: unknown, contentType: string | undefined): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !/json/i.test(contentType ?? '')) return undefined;
  const [first] = Object.keys(body);
  return first === undefined ? undefined : `unknown field "${first}"`;
}
