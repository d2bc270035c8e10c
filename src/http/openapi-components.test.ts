import { describe, expect, it } from 'vitest';
import { hoistComponents } from './openapi-components.js';

const record = { title: 'Thing', type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
const answer = (schema: unknown, description = 'Default Response') => ({ description, content: { 'application/json': { schema } } });
const error = answer({ $ref: '#/components/schemas/Error' }, 'Every error');

function documentOf(operations: Record<string, unknown>): Record<string, any> {
  return { paths: { '/things': operations }, components: { schemas: { Error: { type: 'object' } } } };
}

describe('hoistComponents', () => {
  it('names a titled schema once, its parents refer to it, and a response standing twice becomes a named response', () => {
    const document = documentOf({
      get: { responses: { 200: answer({ type: 'object', properties: { things: { type: 'array', items: record } } }), 400: error, 404: error } },
      post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } }, responses: { 201: answer(record), 400: error } },
      put: { responses: { 200: answer(record), 400: error } },
    });
    hoistComponents(document);
    expect(document.components.schemas.Thing).toEqual(record);
    expect(document.paths['/things'].get.responses[200].content['application/json'].schema.properties.things.items).toEqual({ $ref: '#/components/schemas/Thing' });
    expect(document.components.responses).toEqual({ Error: error, Thing: answer({ $ref: '#/components/schemas/Thing' }) });
    expect(document.paths['/things'].get.responses[404]).toEqual({ $ref: '#/components/responses/Error' });
    expect(document.paths['/things'].post.responses[201]).toEqual({ $ref: '#/components/responses/Thing' });
    // An answer standing once stays in its operation.
    expect(document.paths['/things'].get.responses[200].description).toBe('Default Response');
  });

  it('refuses two different schemas under one title, and a title that is another shared schema', () => {
    const other = { ...record, properties: { id: { type: 'integer' } } };
    expect(() => hoistComponents(documentOf({ get: { responses: { 200: answer(record) } }, put: { responses: { 200: answer(other) } } }))).toThrow(
      /two different schemas are titled Thing/,
    );
    expect(() => hoistComponents(documentOf({ get: { responses: { 200: answer({ ...record, title: 'Error' }) } } }))).toThrow(/not the shared schema/);
  });
});
