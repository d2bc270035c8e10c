import type { Http } from '../types.js';

/** The OpenAPI document generated from the route schemas. */
export function docsRoutes(app: Http): void {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
