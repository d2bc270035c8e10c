import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { setActiveOrganization } from '../../../services/organizations/active.js';
import { setSessionCookie } from '../../cookies.js';
import type { Guards } from '../../plugins/guards.js';
import { errors, Timestamp, Uuid } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';

// docs/organizations.md: the session's active organisation.

export function activeOrganizationRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'organizations');

  app.post(
    '/v1/sessions/active_organization',
    route.session({
      operationId: 'setActiveOrganization',
      summary: "Set (or, with null, clear) the session's active organisation: a new access token with org_* claims",
      description: 'The session keeps it across refreshes. A session authenticated by cookie gets its __session cookie renewed.',
      body: Type.Object({ organization_id: Type.Union([Uuid, Type.Null()]) }),
      response: { 200: Type.Object({ access_token: Type.String(), expires_at: Timestamp }), ...errors(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      const answer = await setActiveOrganization(deps, request.application!, request.session!, request.body.organization_id);
      if (request.session!.via === 'cookie') setSessionCookie(reply, deps.config, answer.access_token);
      return answer;
    },
  );
}
