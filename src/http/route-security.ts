import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { Guards } from './plugins/guards-interface.js';

// What each guard (plugins/guards.ts) accepts, as the OpenAPI document states it in a route's `security`:
// the schemes are declared in app.ts (securitySchemes). A route states the requirement of the guard it runs.

type Security = Record<string, string[]>[];
type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

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
const routeGroup = (tag: string, security: Security) => ({ tags: [tag], security });

/**
 * A module's route options by the guard they run: the guard with the security it accepts, and the module's
 * tag, before the route's own schema (`routesOf(guards, 'events').secret({ operationId, summary, ... })`),
 * so a declaration states only what is its own and never a security other than its guard's.
 */
export function routesOf(guards: Guards, tag: string) {
  // A route's own schema may not name a security or a tag: the guard's and the module's are the ones it has.
  const run = (preHandler: Guard, security: Security) => <S extends FastifySchema & { security?: never; tags?: never }>(schema: S) => ({ preHandler, schema: { ...routeGroup(tag, security), ...schema } });
  return {
    secret: run(guards.secret, secretKey),
    publishable: run(guards.publishable, publishableKey),
    session: run(guards.publishableSession, userSession),
    secretOrSession: run(guards.secretOrSession, secretOrSession),
    console: run(guards.console, consoleCredential),
    billing: run(guards.billing, secretKey),
    publishableWithEmailUser: run(guards.publishableWithEmailUser, publishableKey),
    presumingPublishable: run(guards.presumingPublishable, publishableKey),
  };
}
