import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../services/tables/rows.js';

/** The caller of a Secret-or-Session route: the secret key sees every row, a session its own or its active organisation's. */
export const callerOf = (request: FastifyRequest): Caller =>
  request.appVia === 'secret'
    ? { kind: 'secret' }
    : { kind: 'user', userId: request.session!.userId, sessionId: request.session!.sessionId, orgId: request.session!.orgId };
