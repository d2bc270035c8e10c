import type { FastifyRequest } from 'fastify';
import type { Actor, EventContext } from '../services/events/types.js';
import { clientInfo } from './client-ip.js';

/**
 * Who made a request's change and from where, for its event: the client IP as the rate limits see it
 * (TRUST_PROXY) and the User-Agent (at most 512 characters). The actor, unless given: the user of the
 * request's session, else the app's secret key for a Secret request, else an anonymous user (a sign-up:
 * the service names the user it creates).
 */
export function eventContext(request: FastifyRequest, actor?: Actor): EventContext {
  const { ip, userAgent } = clientInfo(request);
  return { actor: actor ?? requestActor(request), ip, userAgent };
}

function requestActor(request: FastifyRequest): Actor {
  // A Console credential (docs/management.md), with X-App-Id on a Secret route too: the member, token or operator.
  if (request.consoleCaller) return request.consoleCaller.actor;
  if (request.session) return { type: 'user', id: request.session.userId };
  if (request.appVia === 'secret') return { type: 'secret_key', id: null };
  return { type: 'user', id: null };
}
