// What each guard (plugins/guards.ts) accepts, as the OpenAPI document states it in a route's `security`:
// the schemes are declared in app.ts (securitySchemes). A route states the requirement of the guard it runs.

type Security = Record<string, string[]>[];

/** guards.secret: the app's secret key. */
export const secretKey: Security = [{ secret: [] }];
/** guards.publishable: the app's publishable key (or a verified-domain Host). */
export const publishableKey: Security = [{ publishable: [] }];
/** guards.publishableSession: the publishable key and a user's session. */
export const userSession: Security = [{ publishable: [], session: [] }];
/** guards.secretOrSession: either of the two. */
export const secretOrSession: Security = [...secretKey, ...userSession];
/** guards.console: a Console credential (docs/management.md). */
export const consoleCredential: Security = [{ console: [] }];

/** The tag and security a module's routes share, spread into each route's schema. */
export const routeGroup = (tag: string, security: Security) => ({ tags: [tag], security });
