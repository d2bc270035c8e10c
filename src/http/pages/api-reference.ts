import { escapeHtml as e } from './page.js';

// The API reference at /docs: one HTML page rendered on the server from the OpenAPI document, with no
// script. Plain semantic HTML (landmarks, one h1, headings in order, tables with headers, <details> for
// each operation's fields) is what keeps it usable by keyboard and screen reader; the suite runs axe-core
// on it. Swagger UI, for trying calls in the browser, is at /docs/explorer.

type Schema = {
  type?: string | string[];
  $ref?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  description?: string;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  default?: unknown;
};
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema };
type Content = Record<string, { schema?: Schema }>;
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  security?: Record<string, string[]>[];
  requestBody?: { required?: boolean; content?: Content };
  responses?: Record<string, Answer>;
};
type Answer = { description?: string; content?: Content; $ref?: string };
export type OpenApiDocument = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; responses?: Record<string, Answer>; securitySchemes?: Record<string, { description?: string; name?: string }> };
};

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];
const AUTH: Record<string, string> = {
  publishable: 'publishable key (X-Publishable-Key)',
  secret: 'secret key (Authorization: Bearer sk_...)',
  session: "a user's access token (Authorization: Bearer)",
};
/** Deeper fields than this are named by their type only, so one operation's tables stay readable. */
const MAX_DEPTH = 3;

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  if (!schema.$ref) return schema;
  return doc.components?.schemas?.[schema.$ref.split('/').pop()!] ?? schema;
}

function typeName(doc: OpenApiDocument, raw: Schema | undefined): string {
  if (!raw) return 'any';
  if (raw.$ref) return raw.$ref.split('/').pop()!;
  const schema = raw;
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((s) => typeName(doc, s)).join(' or ');
  if (schema.allOf) return schema.allOf.map((s) => typeName(doc, s)).join(' and ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.type === 'array') return `array of ${typeName(doc, schema.items)}`;
  if (Array.isArray(schema.type)) return schema.type.join(' or ');
  if (schema.format === 'binary') return 'binary';
  return schema.format ? `${schema.type ?? 'any'} (${schema.format})` : (schema.type ?? 'any');
}

function constraints(schema: Schema): string[] {
  const notes: string[] = [];
  const s = schema.anyOf?.find((x) => x.type !== 'null') ?? schema;
  if (s.minLength !== undefined || s.maxLength !== undefined) notes.push(`${s.minLength ?? 0} to ${s.maxLength ?? '∞'} characters`);
  if (s.minimum !== undefined || s.maximum !== undefined) notes.push(`from ${s.minimum ?? '−∞'} to ${s.maximum ?? '∞'}`);
  if (s.pattern) notes.push(`matches ${s.pattern}`);
  if (schema.default !== undefined) notes.push(`default ${JSON.stringify(schema.default)}`);
  return notes;
}

/** A named answer (`{$ref: '#/components/responses/Error'}`) is the answer it names. */
function resolveAnswer(doc: OpenApiDocument, answer: Answer): Answer {
  if (!answer.$ref) return answer;
  return doc.components?.responses?.[answer.$ref.split('/').pop()!] ?? answer;
}

/** One row per field of an object schema, nested objects' fields as `parent.child`. */
function fieldRows(doc: OpenApiDocument, raw: Schema, prefix = '', depth = 0): string[] {
  const schema = resolve(doc, raw);
  const objectSchema = schema.type === 'array' && schema.items ? resolve(doc, schema.items) : schema;
  if (!objectSchema.properties || depth >= MAX_DEPTH) return [];
  const itemPrefix = schema.type === 'array' ? `${prefix}[]` : prefix;
  const required = new Set(objectSchema.required ?? []);
  return Object.entries(objectSchema.properties).flatMap(([name, field]) => {
    const path = itemPrefix ? `${itemPrefix}.${name}` : name;
    const about = [field.description, ...constraints(field)].filter(Boolean).join('; ');
    const row = `<tr><th scope="row"><code>${e(path)}</code></th><td>${e(typeName(doc, field))}</td><td>${required.has(name) ? 'yes' : 'no'}</td><td>${e(about)}</td></tr>`;
    return [row, ...fieldRows(doc, field, path, depth + 1)];
  });
}

function fieldTable(doc: OpenApiDocument, caption: string, schema: Schema | undefined): string {
  if (!schema) return '';
  const rows = fieldRows(doc, schema);
  if (rows.length === 0) return `<p>${e(caption)}: ${e(typeName(doc, schema))}</p>`;
  return `<table><caption>${e(caption)}</caption><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">About</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function parameterTable(parameters: Parameter[], doc: OpenApiDocument): string {
  if (parameters.length === 0) return '';
  const rows = parameters.map((p) => {
    const about = [p.description, ...constraints(p.schema ?? {})].filter(Boolean).join('; ');
    return `<tr><th scope="row"><code>${e(p.name)}</code></th><td>${e(p.in)}</td><td>${e(typeName(doc, p.schema))}</td><td>${p.required ? 'yes' : 'no'}</td><td>${e(about)}</td></tr>`;
  });
  return `<table><caption>Parameters</caption><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">About</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function operationHtml(doc: OpenApiDocument, method: string, path: string, op: Operation): string {
  const id = `op-${op.operationId ? slug(op.operationId) : slug(`${method} ${path}`)}`;
  const auth = (op.security ?? []).flatMap((s) => Object.keys(s)).map((name) => AUTH[name] ?? name);
  const body = op.requestBody?.content;
  const bodyHtml = body
    ? Object.entries(body).map(([type, { schema }]) => `<p>Body (${e(type)})${op.requestBody?.required ? '' : ', optional'}; unknown fields are refused.</p>${type.includes('json') ? fieldTable(doc, 'Body fields', schema) : ''}`).join('')
    : '';
  const answers = Object.entries(op.responses ?? {}).map(([status, named]) => {
    const answer = resolveAnswer(doc, named);
    const types = Object.keys(answer.content ?? {});
    const json = answer.content?.['application/json']?.schema;
    const errorShape = json?.$ref?.endsWith('/Error') || answer.description === 'Every error';
    const table = json && !errorShape && status.startsWith('2') ? fieldTable(doc, `Answer ${status} fields`, json) : '';
    return `<li><strong>${e(status)}</strong>: ${e(answer.description ?? '')}${types.length ? ` (${e(types.join(', '))})` : ''}${errorShape ? ', <code>{detail, code}</code>' : ''}${table}</li>`;
  });
  return `<article aria-labelledby="${id}">
<h3 id="${id}"><span class="method">${e(method.toUpperCase())}</span> <code>${e(path)}</code></h3>
<p>${e(op.summary ?? '')}</p>${op.description ? `<p>${e(op.description)}</p>` : ''}
<p class="auth">${auth.length ? `Authentication: ${e(auth.join(', or '))}` : 'No authentication'}</p>
<details><summary>Parameters, body and answers of <code>${e(method.toUpperCase())} ${e(path)}</code></summary>
${parameterTable(op.parameters ?? [], doc)}${bodyHtml}<h4>Answers</h4><ul>${answers.join('')}</ul></details>
</article>`;
}

const STYLE = `body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff}
header,main,nav{max-width:64rem;margin:0 auto;padding:0 1rem}header{padding-top:1.5rem}h1{font-size:1.6rem;margin:0 0 .5rem}
h2{font-size:1.3rem;margin:2rem 0 .5rem;border-bottom:1px solid #d0d7de}h3{font-size:1.05rem;margin:1.25rem 0 .25rem}
h4{font-size:1rem;margin:.75rem 0 .25rem}.method{display:inline-block;min-width:4.5rem;font-weight:700;color:#0a3069}
a{color:#0550ae}code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}p.auth{color:#424a53;margin:.25rem 0}
details{margin:.25rem 0 1rem}summary{cursor:pointer;color:#0550ae}table{border-collapse:collapse;margin:.5rem 0;width:100%;font-size:.9rem}
caption{text-align:left;font-weight:600;padding:.25rem 0}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
thead th{background:#f6f8fa}nav ul{columns:2;padding-left:1.25rem}:focus-visible{outline:3px solid #0969da;outline-offset:2px}`;

/** The whole reference page for an OpenAPI document, operations grouped by tag in the order they first appear. */
export function apiReferenceHtml(doc: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(operationHtml(doc, method, path, op));
    }
  }
  const tags = [...byTag.keys()];
  const title = `${doc.info.title} API reference`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title><style>${STYLE}</style></head>
<body>
<header><h1>${e(title)}</h1><p>${e(doc.info.description ?? '')}, version ${e(doc.info.version)}. Every error answers <code>{detail, code}</code>. The same document as JSON: <a href="/openapi.json">/openapi.json</a>. To try calls in the browser: <a href="/docs/explorer">the Swagger UI explorer</a>.</p></header>
<nav aria-label="Sections"><ul>${tags.map((t) => `<li><a href="#tag-${slug(t)}">${e(t)}</a></li>`).join('')}</ul></nav>
<main>${tags.map((t) => `<section aria-labelledby="tag-${slug(t)}"><h2 id="tag-${slug(t)}">${e(t)}</h2>${byTag.get(t)!.join('\n')}</section>`).join('\n')}</main>
</body></html>
`;
}
