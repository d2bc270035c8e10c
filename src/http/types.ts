import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Application, ConsoleCaller, PresumedKey, SessionContext, SessionUser, User } from '../services/credentials.js';

/** The Fastify instance every route module receives: TypeBox schemas type the handlers. */
export type Http = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

export type { SessionContext };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A session without a second factor may use the route in an app with `--mfa required` (enrollment, /v1/me, logout). */
    mfaEnrollment?: boolean;
  }
  interface FastifyRequest {
    /** Set by the guards: the application the request is for. */
    application?: Application;
    /** How the application was resolved. */
    appVia?: 'publishable' | 'secret' | 'host';
    /** Set by the console guard, and by the Secret guards for a Console credential with X-App-Id (docs/management.md). */
    consoleCaller?: ConsoleCaller;
    /** Set by the session guard. */
    session?: SessionContext;
    /** Set by a presuming guard instead of `application`: the route confirms the key (guards.presumed). */
    presumedKey?: PresumedKey;
    /** Set by the session guard when its joined query already read the user (GET /v1/me answers it). */
    sessionUser?: SessionUser;
    /** Set by guards.publishableWithEmailUser: the app's user with the body's email, read with the key (undefined: none). */
    emailUser?: { emailNormalized: string; user: User | undefined };
  }
}
